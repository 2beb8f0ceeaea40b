//! Cargo build script: picks how the index extracts and deposits bits.
//!
//! The crate is compiled for the processor it runs on (`target-cpu=native`
//! in `.cargo/config.toml`), so BMI2's `pext`/`pdep` are available there,
//! but on AMD processors before Zen 3 (family 0x19) they are microcoded and
//! take hundreds of cycles for a 24-point mask. On those this sets the cfg
//! `slow_bmi2`, and the index uses byte tables instead. Deciding at build
//! time keeps a check out of every index computation (a run-time check
//! cost about 5-10 % of a placing build). `MILLBASE_PEXT=table` or
//! `=hardware` overrides the choice (to measure one against the other).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(slow_bmi2)");
    println!("cargo::rerun-if-env-changed=MILLBASE_PEXT");
    println!("cargo::rerun-if-changed=build.rs");
    let slow = match std::env::var("MILLBASE_PEXT").as_deref() {
        Ok("table") => true,
        Ok("hardware") => false,
        _ => host_has_slow_bmi2(),
    };
    if slow {
        println!("cargo::rustc-cfg=slow_bmi2");
    }
}

/// AMD before family 0x19; never true on other processors.
fn host_has_slow_bmi2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let vendor = core::arch::x86_64::__cpuid(0);
        let leaf1 = core::arch::x86_64::__cpuid(1);
        let amd = (vendor.ebx, vendor.edx, vendor.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163);
        let family = ((leaf1.eax >> 8) & 15) + ((leaf1.eax >> 20) & 255);
        amd && family < 0x19
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
