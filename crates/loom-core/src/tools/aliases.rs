//! Argument names models were trained on: small and mid-size models often call a tool with
//! the names of the harness they learned on (`old_string` for Claude Code's Edit,
//! `filePath` for opencode's, `cmd` for a shell tool). [`ALIASES`] maps those names to
//! Loom's at the one parse step ([`super::args::canonical`]), before the typed parse: the
//! call is still parsed once and still typed, an alias given together with the name it
//! stands for is an error, and the result tells the model which names were mapped so it
//! learns the right ones.

use serde_json::{Map, Value};

use super::ToolError;

/// `(tool, alias, Loom's name)`: the names other harnesses use for Loom's arguments.
/// Claude Code: Read/Write/Edit/MultiEdit (`file_path`, `old_string`, `new_string`,
/// `replace_all`) and Grep/Glob (`pattern`); opencode: `filePath`, `oldString`,
/// `newString`, `replaceAll`; shell tools across harnesses (ZeroClaw's seed lists `cmd`,
/// `script`, `shell_command`, `bash`, `sh`); and the obvious synonyms for a search's
/// pattern, a listing's directory and a file's content.
pub const ALIASES: &[(&str, &str, &str)] = &[
    ("read_file", "file_path", "path"),
    ("read_file", "filePath", "path"),
    ("write_file", "file_path", "path"),
    ("write_file", "filePath", "path"),
    ("write_file", "contents", "content"),
    ("write_file", "text", "content"),
    ("edit_file", "file_path", "path"),
    ("edit_file", "filePath", "path"),
    ("edit_file", "old_string", "old_str"),
    ("edit_file", "new_string", "new_str"),
    ("edit_file", "oldString", "old_str"),
    ("edit_file", "newString", "new_str"),
    ("edit_file", "replaceAll", "replace_all"),
    ("apply_patch", "patch", "input"),
    ("bash", "cmd", "command"),
    ("bash", "script", "command"),
    ("bash", "shell_command", "command"),
    ("bash", "bash", "command"),
    ("bash", "sh", "command"),
    ("bash", "workdir", "cwd"),
    ("search_files", "query", "pattern"),
    ("search_files", "regex", "pattern"),
    ("search_files", "dir", "path"),
    ("search_files", "directory", "path"),
    ("list_files", "dir", "path"),
    ("list_files", "directory", "path"),
];

/// Fields holding a list of objects whose keys the tool's aliases also apply to (Claude
/// Code's MultiEdit sends `edits: [{old_string, new_string}]`).
const NESTED: &[(&str, &str)] = &[("edit_file", "edits")];

/// One alias replaced by Loom's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapped {
    /// The name the model used.
    pub alias: String,
    /// Loom's name for it.
    pub name: String,
}

/// Rename the aliases of `tool` in `args` (and in the items of its nested lists); an alias
/// given together with the name it stands for is an error naming both.
pub fn apply(tool: &str, args: &mut Map<String, Value>) -> Result<Vec<Mapped>, ToolError> {
    let mut mapped = Vec::new();
    rename(tool, args, &mut mapped)?;
    for (_, field) in NESTED.iter().filter(|(t, _)| *t == tool) {
        if let Some(Value::Array(items)) = args.get_mut(*field) {
            for item in items.iter_mut().filter_map(Value::as_object_mut) {
                rename(tool, item, &mut mapped)?;
            }
        }
    }
    Ok(mapped)
}

fn rename(
    tool: &str,
    args: &mut Map<String, Value>,
    mapped: &mut Vec<Mapped>,
) -> Result<(), ToolError> {
    for (_, alias, name) in ALIASES.iter().filter(|(t, _, _)| *t == tool) {
        let Some(value) = args.remove(*alias) else {
            continue;
        };
        if args.contains_key(*name) {
            return Err(ToolError::InvalidArguments(format!(
                "`{alias}` is another name for `{name}`, and both were given; send only `{name}`"
            )));
        }
        args.insert((*name).to_string(), value);
        let m = Mapped {
            alias: (*alias).to_string(),
            name: (*name).to_string(),
        };
        if !mapped.contains(&m) {
            mapped.push(m);
        }
    }
    Ok(())
}

/// The line the tool result carries when names were mapped, so the model learns Loom's.
pub fn note(mapped: &[Mapped]) -> Option<String> {
    if mapped.is_empty() {
        return None;
    }
    let pairs: Vec<String> = mapped
        .iter()
        .map(|m| format!("{} → {}", m.alias, m.name))
        .collect();
    Some(format!(
        "note: mapped {} (use these argument names next time)",
        pairs.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn claude_code_edit_names_map_to_loom_s() {
        let mut a = obj(json!({"file_path": "a.rs", "old_string": "x", "new_string": "y"}));
        let mapped = apply("edit_file", &mut a).unwrap();
        assert_eq!(
            Value::Object(a),
            json!({"path": "a.rs", "old_str": "x", "new_str": "y"})
        );
        assert_eq!(
            note(&mapped).unwrap(),
            "note: mapped file_path → path, old_string → old_str, new_string → new_str (use \
             these argument names next time)"
        );
    }

    #[test]
    fn multi_edit_items_are_mapped_too() {
        let mut a = obj(
            json!({"path": "a", "edits": [{"oldString": "x", "newString": "y", "replaceAll": true}]}),
        );
        apply("edit_file", &mut a).unwrap();
        assert_eq!(
            a["edits"],
            json!([{"old_str": "x", "new_str": "y", "replace_all": true}])
        );
    }

    #[test]
    fn an_alias_beside_its_name_is_an_error() {
        let mut a = obj(json!({"command": "ls", "cmd": "rm -rf /"}));
        let err = apply("bash", &mut a).unwrap_err().to_string();
        assert!(
            err.contains("`cmd` is another name for `command`, and both were given"),
            "{err}"
        );
    }

    #[test]
    fn other_tools_and_real_names_are_untouched() {
        let mut a = obj(json!({"cmd": "x"}));
        assert!(apply("mcp__s__bash", &mut a).unwrap().is_empty());
        assert_eq!(a["cmd"], "x");
        let mut a = obj(json!({"path": "p", "content": "c"}));
        assert!(apply("write_file", &mut a).unwrap().is_empty());
        assert_eq!(note(&[]), None);
    }

    /// Every alias maps to a real argument of its tool and never shadows one.
    #[test]
    fn the_table_names_real_arguments() {
        let registry = super::super::ToolRegistry::all_builtin();
        for (tool, alias, name) in ALIASES {
            let params = registry.get(tool).unwrap().parameters();
            let props = params["properties"].as_object().unwrap();
            assert!(props.contains_key(*name), "{tool}: {name}");
            assert!(
                !props.contains_key(*alias),
                "{tool}: {alias} is a real argument"
            );
        }
    }
}
