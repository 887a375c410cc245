//! The start-up layout (issue 26, idle memory): the committed list of functions that run
//! from launch to the first idle screen, and the linker script build.rs makes of it for
//! release builds. What the layout saves is measured by `benches/tui_e2e.rs`; these check
//! that nothing in the list is silently dropped and that the script only adds to the
//! linker's default layout.

#[path = "../../link/layout.rs"]
mod layout;

fn committed_list() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("link/startup-functions.txt");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every name in the list reaches the linker script: a name the filter refused would drop
/// out of the layout without a word.
#[test]
fn every_listed_function_reaches_the_script() {
    let list = committed_list();
    let names: Vec<&str> = list
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    let kept: Vec<&str> = layout::listed_functions(&list).collect();
    assert_eq!(kept, names, "names the linker script cannot hold");
    assert!(
        names.len() > 500,
        "start-up runs about a thousand functions; the list has {}",
        names.len()
    );
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "a function listed twice");
    let script = layout::startup_script(&list);
    assert_eq!(script.matches("*(.text.").count(), 2 * names.len());
}

/// The script names each function's section and its cold twin, in the order listed, inside
/// `.text`, and only adds to the default layout (`INSERT`), so everything it does not name
/// lands where the linker would have put it anyway.
#[test]
fn the_script_puts_listed_functions_first_in_text() {
    let list = "# comment\n_ZN4loom4main17h*E\n\nmain\n_ZN3bad)name17h*E\n";
    let script = layout::startup_script(list);
    assert_eq!(
        script,
        "SECTIONS {\n  .text : {\n    *(.text._ZN4loom4main17h*E*)\n    \
         *(.text.unlikely._ZN4loom4main17h*E*)\n    *(.text.main*)\n    \
         *(.text.unlikely.main*)\n  }\n}\nINSERT AFTER .init;\n"
    );
}
