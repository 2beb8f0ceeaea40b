//! The writer's lock on a database folder: one build at a time.
//!
//! A build takes an advisory lock (`flock`) on `<db>/.millbase.lock` and
//! keeps it until it ends; the kernel releases it when the process dies,
//! however it dies, so a stale lock file never blocks a later build. A
//! second writer does not wait: it refuses, naming the first one's
//! process. Readers take no lock: every table is renamed into place only
//! when complete, so they never see a partial one.

use super::TableError;
use std::fs::File;
use std::path::Path;

/// The name of the lock file inside a database folder.
pub const LOCK_FILE: &str = ".millbase.lock";

/// Held while a process writes into a database folder; dropping it
/// releases the lock.
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
}

impl FolderLock {
    /// Takes the lock of `db` (made if missing), or says which process
    /// holds it.
    pub fn acquire(db: &Path) -> Result<FolderLock, TableError> {
        std::fs::create_dir_all(db).map_err(|e| TableError::Io(db.to_path_buf(), e))?;
        let path = db.join(LOCK_FILE);
        let io = |e| TableError::Io(path.clone(), e);
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        if !try_lock(&file).map_err(io)? {
            let holder = std::fs::read_to_string(&path).unwrap_or_default();
            return Err(TableError::Locked {
                folder: db.to_path_buf(),
                pid: holder.trim().parse().ok(),
            });
        }
        use std::io::{Seek, Write};
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        write!(file, "{}", std::process::id()).map_err(io)?;
        Ok(FolderLock { _file: file })
    }
}

/// Takes an exclusive lock without waiting; `false` when another open file
/// holds it.
impl Drop for FolderLock {
    /// Lets go of the lock itself rather than leaving it to the closing of
    /// the file: a process started by another thread at that moment holds
    /// a copy of the descriptor until it runs its program, and the lock
    /// would last as long, refusing this process's next build.
    fn drop(&mut self) {
        unlock(&self._file);
    }
}

#[cfg(target_os = "linux")]
fn unlock(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: flock only reads the descriptor, which `file` keeps open for
    // the duration of the call. A failure leaves the lock to the closing.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_UN) };
}

#[cfg(not(target_os = "linux"))]
fn unlock(_file: &File) {}

#[cfg(target_os = "linux")]
fn try_lock(file: &File) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock only reads the descriptor, which `file` keeps open for
    // the duration of the call.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}

/// Without `flock`, no lock is taken.
#[cfg(not(target_os = "linux"))]
fn try_lock(_file: &File) -> std::io::Result<bool> {
    Ok(true)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_until_the_first_lets_go() {
        let db = std::env::temp_dir().join(format!("millbase-lock-{}", std::process::id()));
        let first = FolderLock::acquire(&db).unwrap();
        let again = FolderLock::acquire(&db).unwrap_err().to_string();
        let pid = std::process::id();
        assert!(
            again.contains(&format!("another build (pid {pid}) is writing")),
            "{again}"
        );
        drop(first);
        let second = FolderLock::acquire(&db);
        assert!(second.is_ok());
        drop(second);
        std::fs::remove_dir_all(&db).unwrap();
    }

    /// A copy of the descriptor left in a process being started (by
    /// another thread) does not keep the lock once its holder lets go.
    #[test]
    fn a_copied_descriptor_does_not_outlive_the_lock() {
        let db = std::env::temp_dir().join(format!("millbase-lock-copy-{}", std::process::id()));
        let first = FolderLock::acquire(&db).unwrap();
        let copy = first._file.try_clone().unwrap();
        drop(first);
        let second = FolderLock::acquire(&db);
        assert!(second.is_ok(), "{:?}", second.err());
        drop(second);
        drop(copy);
        std::fs::remove_dir_all(&db).unwrap();
    }
}
