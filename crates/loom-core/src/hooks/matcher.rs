//! Which tool calls a hook's `matcher` selects: a regex on the whole tool name, where
//! Claude Code's tool names (`Bash`, `Edit`, ...) also select Loom's equivalents, so a
//! matcher written for Claude Code works unchanged.

/// Claude Code's tool names and the Loom tools each stands for.
pub const CLAUDE_NAMES: &[(&str, &[&str])] = &[
    ("Bash", &["bash"]),
    ("Read", &["read_file"]),
    ("Write", &["write_file"]),
    ("Edit", &["edit_file", "apply_patch"]),
    ("MultiEdit", &["edit_file", "apply_patch"]),
    ("Grep", &["search_files"]),
    ("Glob", &["list_files"]),
    ("LS", &["list_files"]),
    ("WebFetch", &["web_fetch"]),
    ("WebSearch", &["web_search"]),
    ("Task", &["delegate"]),
    ("TodoWrite", &["update_plan"]),
];

/// Claude Code's names for the Loom tool `tool`.
pub fn claude_names(tool: &str) -> impl Iterator<Item = &'static str> + '_ {
    CLAUDE_NAMES
        .iter()
        .filter(move |(_, loom)| loom.contains(&tool))
        .map(|(claude, _)| *claude)
}

/// A compiled matcher.
#[derive(Debug, Clone)]
pub struct Matcher {
    /// `None`: every tool.
    regex: Option<regex::Regex>,
}

impl Matcher {
    /// The matcher of `pattern`: empty or `*` selects every tool; anything else is a regex
    /// the whole tool name must match (`Edit|Write`, `mcp__.*`).
    pub fn new(pattern: &str) -> Result<Matcher, regex::Error> {
        Ok(Matcher {
            regex: crate::config::hooks::matcher_regex(pattern)?,
        })
    }

    /// Whether the Loom tool `tool` is selected: by its own name or by one of Claude
    /// Code's names for it.
    pub fn selects(&self, tool: &str) -> bool {
        match &self.regex {
            None => true,
            Some(r) => r.is_match(tool) || claude_names(tool).any(|c| r.is_match(c)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_names_select_looms_tools_and_loom_names_select_themselves() {
        let m = Matcher::new("Edit|Write").unwrap();
        for tool in ["edit_file", "apply_patch", "write_file"] {
            assert!(m.selects(tool), "{tool}");
        }
        for tool in ["bash", "read_file", "Edit_file"] {
            assert!(!m.selects(tool), "{tool}");
        }
        let m = Matcher::new("bash|write_file").unwrap();
        assert!(m.selects("bash") && m.selects("write_file") && !m.selects("edit_file"));
        assert!(Matcher::new("Bash").unwrap().selects("bash"));
    }

    #[test]
    fn the_whole_name_must_match_and_empty_or_star_selects_all() {
        assert!(!Matcher::new("bas").unwrap().selects("bash"));
        assert!(!Matcher::new("Read").unwrap().selects("read_file_extra"));
        assert!(Matcher::new("mcp__.*").unwrap().selects("mcp__git__log"));
        for all in ["", "*", "  "] {
            assert!(Matcher::new(all).unwrap().selects("anything"), "{all:?}");
        }
        assert!(Matcher::new("(").is_err());
    }

    #[test]
    fn every_mapped_loom_tool_maps_back() {
        for (claude, loom) in CLAUDE_NAMES {
            for tool in *loom {
                assert!(
                    claude_names(tool).any(|c| c == *claude),
                    "{claude} -> {tool}"
                );
            }
        }
    }
}
