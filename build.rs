//! Links the `loom` executable for a small resident set: packed relocations where the
//! system's glibc reads them, and the code start-up runs placed together at the start of
//! the code. (The token tables are written by `crates/loom-llm/build.rs`.)

/// Ask the linker to pack the `loom` executable's relative relocations (DT_RELR): as a
/// position-independent executable it has ~50,000 of them, 1.2 MB of `.rela.dyn` that the
/// loader reads at every start and that stays resident (issue 26: idle memory); packed,
/// they take a few kilobytes. glibc applies packed relocations from 2.36 on, so this is
/// done only when building for this machine's own glibc and it is that new.
fn pack_relative_relocations() {
    let (Some(host), Some(target)) = (std::env::var_os("HOST"), std::env::var_os("TARGET")) else {
        return;
    };
    if host != target || !target.to_string_lossy().ends_with("-linux-gnu") {
        return;
    }
    let Ok(out) = std::process::Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
    else {
        return;
    };
    // "glibc 2.36"
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else {
        return;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if (major, minor) >= (2, 36) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Where the list of start-up functions is, relative to the package.
const STARTUP_FUNCTIONS: &str = "link/startup-functions.txt";

/// Place the functions that run from launch to the first idle screen (listed in
/// `link/startup-functions.txt`) together at the start of `.text`, in release builds.
///
/// Why: the kernel maps the 64 KB around each page of the executable a process touches
/// (fault-around). Start-up runs about 2 MB of code spread over 20 MB, which touched most of
/// those 64 KB windows: 10 MB of the idle 17 MB resident set (issue 26). Placed together,
/// the same code touches about 4.5 MB.
///
/// How: a linker script that only adds to the linker's default layout (`INSERT`), naming
/// the functions' sections (`-ffunction-sections` is rustc's default) with a wildcard for
/// each symbol's hash, so that the list holds for both the release and bench builds and
/// across small changes. Functions the list names that no longer exist match nothing, and
/// new ones land in the rest of `.text`: a stale list costs memory, never correctness.
///
/// Only where the layout was measured and the linker is known to take such a script:
/// x86_64 Linux with rustc's default linker (its bundled lld, the default since 1.90, or
/// GNU ld). A configured linker, `-fuse-ld` or linker flags in RUSTFLAGS, or
/// `LOOM_STARTUP_LAYOUT=off` leave the layout alone.
fn lay_out_startup_code() {
    println!("cargo:rerun-if-changed={STARTUP_FUNCTIONS}");
    println!("cargo:rerun-if-env-changed=LOOM_STARTUP_LAYOUT");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let rustflags = var("CARGO_ENCODED_RUSTFLAGS");
    let chose_linker = !var("RUSTC_LINKER").is_empty()
        || rustflags.contains("fuse-ld")
        || rustflags.contains("linker");
    if var("PROFILE") != "release"
        || var("TARGET") != "x86_64-unknown-linux-gnu"
        || var("LOOM_STARTUP_LAYOUT") == "off"
        || chose_linker
    {
        return;
    }
    let listed = std::path::Path::new(&var("CARGO_MANIFEST_DIR")).join(STARTUP_FUNCTIONS);
    let Ok(list) = std::fs::read_to_string(&listed) else {
        println!("cargo:warning=no {STARTUP_FUNCTIONS}: start-up code is not laid out together");
        return;
    };
    let script = std::path::Path::new(&var("OUT_DIR")).join("startup.ld");
    if std::fs::write(&script, startup_script(&list)).is_ok() {
        // Two arguments, not `-Wl,-T,PATH`: the compiler driver would split a path at a comma.
        println!("cargo:rustc-link-arg-bins=-T");
        println!("cargo:rustc-link-arg-bins={}", script.display());
    }
}

include!("link/layout.rs");

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    pack_relative_relocations();
    lay_out_startup_code();
}
