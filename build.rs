//! Asks for packed relocations in the `loom` executable where the system's glibc reads them.
//! (The token tables are written by `crates/loom-llm/build.rs`.)

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

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    pack_relative_relocations();
}
