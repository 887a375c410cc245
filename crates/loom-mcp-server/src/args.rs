//! The two tools' arguments, typed (serde + schemars, parsed once), and the checks that
//! bound them by the server's own settings: a `cwd` inside the server's workspace and an
//! `approval` no higher than the server's `--approval`.

use std::path::{Path, PathBuf};

use loom_protocol::autonomy::Autonomy;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The arguments of the `loom` tool: start a session and run one prompt in it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoomArgs {
    /// The task for Loom, as a person would type it.
    pub prompt: String,
    /// The directory the session works in: absolute, or relative to the server's
    /// workspace, and inside it (default: the server's workspace).
    #[serde(default)]
    pub cwd: Option<String>,
    /// How much Loom may do without asking: read-only, supervised (default) or full-auto,
    /// at most the server's --approval. Nobody can answer a question here, so whatever
    /// would ask is refused and Loom's model is told why.
    #[serde(default)]
    pub approval: Option<ApprovalArg>,
}

/// The arguments of the `loom-reply` tool: one more prompt in a session.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplyArgs {
    /// The session to continue: the `sessionId` a `loom` call returned.
    #[serde(rename = "sessionId")]
    pub session_id: String,
    /// The next message for Loom.
    pub prompt: String,
}

/// An approval mode as a caller names it (the schema lists the three).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalArg {
    /// Reads only.
    ReadOnly,
    /// Reads and safe commands run; what would ask is refused.
    Supervised,
    /// Nothing asks; what the policy forbids stays forbidden.
    FullAuto,
}

impl From<ApprovalArg> for Autonomy {
    fn from(a: ApprovalArg) -> Autonomy {
        match a {
            ApprovalArg::ReadOnly => Autonomy::ReadOnly,
            ApprovalArg::Supervised => Autonomy::Supervised,
            ApprovalArg::FullAuto => Autonomy::FullAuto,
        }
    }
}

/// Why a call's arguments were refused; the text goes back to the caller as the tool's
/// error, so it says what to do instead.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ArgError {
    /// The arguments do not fit the tool's schema.
    #[error("invalid arguments for `{tool}`: {message}; see the tool's input schema")]
    Shape {
        /// The tool.
        tool: &'static str,
        /// serde's words.
        message: String,
    },
    /// The prompt has no text.
    #[error("the prompt is empty; say what Loom should do")]
    EmptyPrompt,
    /// `cwd` cannot be opened.
    #[error("cwd {cwd:?} cannot be opened ({why}); give an existing directory inside {}", workspace.display())]
    CwdMissing {
        /// As given.
        cwd: String,
        /// Why.
        why: String,
        /// The server's workspace.
        workspace: PathBuf,
    },
    /// `cwd` is not a directory.
    #[error("cwd {cwd:?} is not a directory; give a directory inside {}", workspace.display())]
    CwdNotDir {
        /// As given.
        cwd: String,
        /// The server's workspace.
        workspace: PathBuf,
    },
    /// `cwd` is outside the server's workspace.
    #[error(
        "cwd {} is outside this server's workspace {}; give a directory inside it, or start \
         `loom mcp-server` in a directory that contains it",
        cwd.display(), workspace.display()
    )]
    CwdOutside {
        /// Where it leads.
        cwd: PathBuf,
        /// The server's workspace.
        workspace: PathBuf,
    },
    /// `approval` is above the server's ceiling.
    #[error(
        "approval {asked} is above this server's approval mode {ceiling}; ask for {ceiling} or \
         less, or start the server with `loom mcp-server --approval {asked}`"
    )]
    AboveCeiling {
        /// What the call asked for.
        asked: Autonomy,
        /// The server's `--approval`.
        ceiling: Autonomy,
    },
}

/// Parse a call's arguments (absent ones are an empty object) as `T`, for tool `tool`.
pub fn parse<T: DeserializeOwned>(
    tool: &'static str,
    arguments: Option<Map<String, Value>>,
) -> Result<T, ArgError> {
    serde_json::from_value(Value::Object(arguments.unwrap_or_default())).map_err(|e| {
        ArgError::Shape {
            tool,
            message: e.to_string(),
        }
    })
}

/// The prompt, refused when it has no text.
pub fn prompt(text: String) -> Result<String, ArgError> {
    if text.trim().is_empty() {
        return Err(ArgError::EmptyPrompt);
    }
    Ok(text)
}

/// The order of the modes: each allows everything the one before it does.
fn rank(a: Autonomy) -> u8 {
    match a {
        Autonomy::Plan | Autonomy::ReadOnly => 0,
        Autonomy::Supervised => 1,
        Autonomy::FullAuto => 2,
    }
}

/// The mode a session runs in: the one asked for, at most `ceiling`; without one,
/// supervised (or `ceiling`, when that is lower).
pub fn approval(asked: Option<ApprovalArg>, ceiling: Autonomy) -> Result<Autonomy, ArgError> {
    match asked.map(Autonomy::from) {
        Some(asked) if rank(asked) > rank(ceiling) => {
            Err(ArgError::AboveCeiling { asked, ceiling })
        }
        Some(asked) => Ok(asked),
        None if rank(ceiling) < rank(Autonomy::Supervised) => Ok(ceiling),
        None => Ok(Autonomy::Supervised),
    }
}

/// The directory a session works in: `cwd` (relative to `workspace`, which is canonical)
/// resolved through its links, and inside `workspace`; without one, `workspace`.
pub fn cwd(cwd: Option<&str>, workspace: &Path) -> Result<PathBuf, ArgError> {
    let Some(given) = cwd else {
        return Ok(workspace.to_path_buf());
    };
    let real = std::fs::canonicalize(workspace.join(given)).map_err(|e| ArgError::CwdMissing {
        cwd: given.to_string(),
        why: e.to_string(),
        workspace: workspace.to_path_buf(),
    })?;
    if !real.starts_with(workspace) {
        return Err(ArgError::CwdOutside {
            cwd: real,
            workspace: workspace.to_path_buf(),
        });
    }
    if !real.is_dir() {
        return Err(ArgError::CwdNotDir {
            cwd: given.to_string(),
            workspace: workspace.to_path_buf(),
        });
    }
    Ok(real)
}

/// A type's JSON schema as the object MCP's `inputSchema`/`outputSchema` take.
pub fn schema_of<T: JsonSchema>() -> Map<String, Value> {
    match serde_json::to_value(schemars::schema_for!(T)) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Option<Map<String, Value>> {
        v.as_object().cloned()
    }

    /// Missing, misspelt and mistyped arguments are refused with serde's words, naming the
    /// tool; absent arguments read as an empty object.
    #[test]
    fn bad_shapes_name_the_tool_and_the_field() {
        let e = parse::<LoomArgs>("loom", None).unwrap_err();
        assert!(e.to_string().contains("missing field `prompt`"), "{e}");
        assert!(
            e.to_string().starts_with("invalid arguments for `loom`"),
            "{e}"
        );
        let e = parse::<LoomArgs>("loom", obj(json!({"prompt": "x", "cdw": "."}))).unwrap_err();
        assert!(e.to_string().contains("unknown field `cdw`"), "{e}");
        let e =
            parse::<LoomArgs>("loom", obj(json!({"prompt": "x", "approval": "yolo"}))).unwrap_err();
        assert!(e.to_string().contains("unknown variant `yolo`"), "{e}");
        assert!(e.to_string().contains("full-auto"), "{e}");
        let e = parse::<ReplyArgs>("loom-reply", obj(json!({"prompt": "x"}))).unwrap_err();
        assert!(e.to_string().contains("missing field `sessionId`"), "{e}");
        let ok: ReplyArgs = parse(
            "loom-reply",
            obj(json!({"sessionId": "s1", "prompt": "go on"})),
        )
        .unwrap();
        assert_eq!(ok.session_id, "s1");
        assert_eq!(prompt("  \n".into()), Err(ArgError::EmptyPrompt));
    }

    /// The mode is never above the ceiling; the default is supervised, or the ceiling when
    /// that is read-only.
    #[test]
    fn approval_is_bounded_by_the_ceiling() {
        use Autonomy::*;
        assert_eq!(approval(None, FullAuto), Ok(Supervised));
        assert_eq!(approval(None, Supervised), Ok(Supervised));
        assert_eq!(approval(None, ReadOnly), Ok(ReadOnly));
        assert_eq!(
            approval(Some(ApprovalArg::FullAuto), FullAuto),
            Ok(FullAuto)
        );
        assert_eq!(
            approval(Some(ApprovalArg::ReadOnly), Supervised),
            Ok(ReadOnly)
        );
        let e = approval(Some(ApprovalArg::FullAuto), Supervised).unwrap_err();
        assert_eq!(
            e,
            ArgError::AboveCeiling {
                asked: FullAuto,
                ceiling: Supervised
            }
        );
        assert!(e.to_string().contains("--approval full-auto"), "{e}");
        assert!(approval(Some(ApprovalArg::Supervised), ReadOnly).is_err());
    }

    /// `cwd` resolves relative to the workspace and through links; a directory outside it
    /// (by `..`, an absolute path or a link) is refused, as are a file and a missing path.
    #[test]
    fn cwd_stays_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let ws = root.join("ws");
        std::fs::create_dir_all(ws.join("sub")).unwrap();
        std::fs::write(ws.join("file"), "").unwrap();
        std::os::unix::fs::symlink(&root, ws.join("up")).unwrap();
        assert_eq!(cwd(None, &ws), Ok(ws.clone()));
        assert_eq!(cwd(Some("sub"), &ws), Ok(ws.join("sub")));
        let abs = ws.join("sub").display().to_string();
        assert_eq!(cwd(Some(&abs), &ws), Ok(ws.join("sub")));
        for outside in ["..", "up", "/"] {
            let e = cwd(Some(outside), &ws).unwrap_err();
            assert!(matches!(e, ArgError::CwdOutside { .. }), "{outside}: {e}");
            assert!(
                e.to_string().contains("outside this server's workspace"),
                "{e}"
            );
        }
        assert!(matches!(
            cwd(Some("file"), &ws),
            Err(ArgError::CwdNotDir { .. })
        ));
        assert!(matches!(
            cwd(Some("gone"), &ws),
            Err(ArgError::CwdMissing { .. })
        ));
    }

    /// The schemas MCP clients are shown are objects naming every argument.
    #[test]
    fn schemas_are_objects_with_the_arguments() {
        let s = schema_of::<LoomArgs>();
        assert_eq!(s["type"], "object");
        assert!(s["properties"]["approval"].is_object());
        assert_eq!(s["required"], json!(["prompt"]));
        let r = schema_of::<ReplyArgs>();
        assert_eq!(r["required"], json!(["sessionId", "prompt"]));
    }
}
