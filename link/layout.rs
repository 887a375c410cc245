// The linker script that places start-up's functions first. Shared by build.rs (which
// `include!`s it) and tests/it/startup_layout.rs (which checks the committed list with it);
// see build.rs's `lay_out_startup_code` for why.

/// The symbols listed in `list` (one per line, `*` for a hash; `#` starts a comment line)
/// that can stand in a glob pattern: what symbol names hold, nothing a linker script would
/// read as syntax.
pub fn listed_functions(list: &str) -> impl Iterator<Item = &str> {
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter(|l| {
            l.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_$.*".contains(&b))
        })
}

/// The linker script for the functions in `list` (one symbol per line, `*` for its hash;
/// `#` starts a comment). Each function's section is `.text.SYMBOL`, or
/// `.text.unlikely.SYMBOL` for one the compiler judged cold (`#[cold]` paths such as a
/// vector's growth run at start-up too). The sections join the `.text` that the default
/// layout makes, first, in the order listed.
pub fn startup_script(list: &str) -> String {
    let mut script = String::from("SECTIONS {\n  .text : {\n");
    for name in listed_functions(list) {
        script.push_str(&format!(
            "    *(.text.{name}*)\n    *(.text.unlikely.{name}*)\n"
        ));
    }
    script.push_str("  }\n}\nINSERT AFTER .init;\n");
    script
}
