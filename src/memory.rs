//! Large arrays for random access, backed by huge pages where the system
//! offers them: with 4 KiB pages nearly every random access to gigabytes
//! also misses the TLB.

/// A vector of `len` values made by `f`, its pages advised huge first.
#[cfg(feature = "tables")]
pub fn huge_vec_with<T>(len: usize, f: impl FnMut() -> T) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(len);
    advise_huge(v.as_ptr().cast(), len * std::mem::size_of::<T>());
    v.resize_with(len, f);
    v
}

/// [`huge_vec_with`] filled on every core: a large array's first touch
/// is the kernel zeroing its pages, which one thread does slowly.
#[cfg(feature = "tables")]
pub fn huge_vec_par<T: Send>(len: usize, f: impl Fn() -> T + Sync) -> Vec<T> {
    use rayon::prelude::*;
    let mut v: Vec<T> = Vec::with_capacity(len);
    advise_huge(v.as_ptr().cast(), len * std::mem::size_of::<T>());
    v.spare_capacity_mut()[..len]
        .par_chunks_mut(1 << 16)
        .for_each(|c| {
            for x in c {
                x.write(f());
            }
        });
    // SAFETY: the loop above wrote each of the first `len` elements.
    unsafe { v.set_len(len) };
    v
}

#[cfg(feature = "tables")]
fn advise_huge(ptr: *const u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + len) / HUGE * HUGE;
        if len >= 4 * HUGE && end > start {
            // SAFETY: [start, end) lies inside an allocation of `len` bytes
            // that nothing has touched yet; MADV_HUGEPAGE only changes how
            // the kernel backs those pages, never their contents. A failure
            // (e.g. no transparent huge pages) leaves ordinary pages.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, len);
}

/// Asks the processor to bring `x` into cache ahead of its use.
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and cannot fault; the pointer comes
    // from a reference, so it is valid anyway.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
