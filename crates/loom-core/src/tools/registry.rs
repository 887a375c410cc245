//! The tool registry: names to tools, schemas for the model, and one safe way to run a call.
//!
//! [`ToolRegistry::execute`] is the only door through which the agent and the command line
//! run tools. It normalises and checks the arguments (the tool's typed parse is the schema
//! validation), enforces the per-call timeout, turns panics into error results, and bounds
//! the output. Whatever happens, the caller gets a [`ToolResult`].

use std::collections::HashMap;
use std::sync::Arc;

use futures::FutureExt;
use serde_json::Value;
use thiserror::Error;

use super::change::{self, FileChange, HunkSelection};
use super::{
    CallIntent, ParsedCall, Tool, ToolArgs, ToolContext, ToolError, ToolKind, ToolResult, args,
};
use loom_sandbox::SandboxSpec;

/// A call ready to be judged and run: its arguments in their one canonical form (a JSON
/// object, however the model encoded it) parsed into the tool's type, and what the tool
/// says it will touch.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// The normalised arguments with their typed value, the only ones anything downstream
    /// reads: [`ToolRegistry::run`] runs them without parsing again.
    pub args: ToolArgs,
    /// What the call will touch.
    pub intent: CallIntent,
    /// The arguments as they may be shown and recorded (credentials masked).
    pub shown: Value,
    /// The line the call's result carries when argument names were mapped to Loom's
    /// ([`super::aliases`]), so the model learns them.
    pub note: Option<String>,
}

/// Why a tool could not be registered.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum RegistryError {
    /// Two tools claimed one name.
    #[error("a tool named `{0}` is already registered")]
    Duplicate(String),
}

/// Tools that come and go while Loom runs (those of MCP servers, which start in the
/// background, crash and change their lists): the registry asks for the current set each
/// time it needs them.
pub trait ToolSource: Send + Sync {
    /// The tools offered now.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;
    /// The tool called `name`, if it is offered now.
    fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools().into_iter().find(|t| t.name() == name)
    }
}

/// All tools offered to the model: the fixed ones in registration order, then those of
/// each source (a source's tool never shadows a fixed one).
#[derive(Default, Clone)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
    index: HashMap<String, usize>,
    sources: Vec<Arc<dyn ToolSource>>,
    /// Sources listed right after a fixed tool (its index) rather than at the end.
    placed: Vec<(usize, Arc<dyn ToolSource>)>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> ToolRegistry {
        ToolRegistry::default()
    }

    /// The six workspace tools with edit_file.
    pub fn builtin() -> ToolRegistry {
        ToolRegistry::workspace(true, false)
    }

    /// Every built-in tool, apply_patch included (for `loom tool list` and `loom tool run`).
    pub fn all_builtin() -> ToolRegistry {
        ToolRegistry::workspace(true, true)
    }

    /// The workspace tools with the chosen editing tools (models trained on Codex's patch
    /// format edit better with apply_patch; the rest with edit_file).
    pub fn workspace(edit_file: bool, apply_patch: bool) -> ToolRegistry {
        ToolRegistry::workspace_around(|r| {
            if edit_file {
                r.register(Arc::new(super::edit_file::EditFile))
                    .expect("built-in tool names are unique");
            }
            if apply_patch {
                r.register(Arc::new(super::apply_patch::ApplyPatch))
                    .expect("built-in tool names are unique");
            }
        })
    }

    /// The workspace tools with the editing tool chosen by `edits` (a source that follows
    /// the model in use), listed where a fixed one would be.
    pub fn workspace_editing_with(edits: Arc<dyn ToolSource>) -> ToolRegistry {
        ToolRegistry::workspace_around(|r| r.add_source_here(edits))
    }

    /// read_file and write_file, then what `editing` adds, then the rest.
    fn workspace_around(editing: impl FnOnce(&mut ToolRegistry)) -> ToolRegistry {
        let mut r = ToolRegistry::new();
        for tool in [
            Arc::new(super::read_file::ReadFile) as Arc<dyn Tool>,
            Arc::new(super::write_file::WriteFile),
        ] {
            r.register(tool).expect("built-in tool names are unique");
        }
        editing(&mut r);
        for tool in [
            Arc::new(super::list_files::ListFiles) as Arc<dyn Tool>,
            Arc::new(super::search_files::SearchFiles),
            Arc::new(super::bash::Bash),
        ] {
            r.register(tool).expect("built-in tool names are unique");
        }
        r
    }

    /// Add a tool; a second tool with the same name is an error.
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        let name = tool.name().to_string();
        if self.index.contains_key(&name) {
            return Err(RegistryError::Duplicate(name));
        }
        self.index.insert(name, self.tools.len());
        self.tools.push(tool);
        Ok(())
    }

    /// Offer the tools of `source` too, after the fixed ones.
    pub fn add_source(&mut self, source: Arc<dyn ToolSource>) {
        self.sources.push(source);
    }

    /// Add a source whose tools are listed right after the fixed tools registered so far
    /// (the editing tool, between write_file and list_files, whichever it is now).
    pub fn add_source_here(&mut self, source: Arc<dyn ToolSource>) {
        self.placed.push((self.tools.len(), source));
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        if let Some(&i) = self.index.get(name) {
            return Some(self.tools[i].clone());
        }
        self.placed
            .iter()
            .map(|(_, s)| s)
            .chain(&self.sources)
            .find_map(|s| s.get(name))
    }

    /// The kind of the tool called `name`, if it exists.
    pub fn kind(&self, name: &str) -> Option<ToolKind> {
        self.get(name).map(|t| t.kind())
    }

    /// Tool names: the fixed ones in registration order, then those offered now.
    pub fn names(&self) -> Vec<String> {
        self.tools().iter().map(|t| t.name().to_string()).collect()
    }

    /// Every tool offered now, in order.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut all = Vec::with_capacity(self.tools.len() + 8);
        let fixed = |t: &Arc<dyn Tool>| !self.index.contains_key(t.name());
        for i in 0..=self.tools.len() {
            for (_, source) in self.placed.iter().filter(|(at, _)| *at == i) {
                all.extend(source.tools().into_iter().filter(fixed));
            }
            if let Some(t) = self.tools.get(i) {
                all.push(t.clone());
            }
        }
        for source in &self.sources {
            all.extend(
                source
                    .tools()
                    .into_iter()
                    .filter(|t| !self.index.contains_key(t.name())),
            );
        }
        all
    }

    /// Schemas in the OpenAI function-tool format, their parameters in the portable form
    /// every provider accepts ([`crate::llm::schema`]).
    pub fn schemas(&self) -> Vec<Value> {
        self.tools()
            .iter()
            .map(|t| crate::llm::schema::function(t.name(), t.description(), &t.parameters()))
            .collect()
    }

    fn unknown(&self, name: &str) -> ToolResult {
        ToolResult::err(format!(
            "unknown tool `{name}`; the available tools are: {}",
            self.names().join(", ")
        ))
    }

    /// Normalise and parse a call's arguments once, at the agent boundary: the canonical
    /// arguments and the call's intent, or the error the model should read (unknown tool,
    /// arguments that are not an object or do not match the schema).
    pub fn prepare(&self, name: &str, args: Value) -> Result<Prepared, ToolError> {
        let Some(tool) = self.get(name) else {
            return Err(ToolError::Other(
                self.unknown(name).error.unwrap_or_default(),
            ));
        };
        let (args, mapped) = args::canonical(name, args)?;
        let (call, shown) = parse_guarded(tool.as_ref(), name, args)?;
        Ok(Prepared {
            args: call.args,
            intent: call.intent,
            shown,
            note: super::aliases::note(&mapped),
        })
    }

    /// Run the tool `name` with `args` given as JSON, as a person running a tool directly
    /// would: normalised, parsed once, timed out, panic-safe and bounded, and a bash call's
    /// own `outside_sandbox` honoured ([`ToolRegistry::run_as_asked`]). For tests and
    /// benches, which drive tools without an agent; `loom tool run` does the same through
    /// `prepare`, the policy's refusal and `run_as_asked`. Never for the model's calls: those
    /// go through [`ToolRegistry::prepare`] and [`ToolRegistry::run`], where the policy's
    /// ruling alone decides whether a call leaves the sandbox.
    pub async fn execute_as_person(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> ToolResult {
        if self.get(name).is_none() {
            return self.unknown(name);
        }
        let (args, mapped) = match args::canonical(name, args) {
            Ok(a) => a,
            Err(e) => return e.into(),
        };
        let tool = self.get(name).expect("checked above");
        let call = match parse_guarded(tool.as_ref(), name, args) {
            Ok((call, _)) => call,
            Err(e) => return self.bound(e.into(), ctx),
        };
        let mut result = self.run_as_asked(name, &call.args, &call.intent, ctx).await;
        if let Some(note) = super::aliases::note(&mapped) {
            with_note(&mut result, &note);
        }
        result
    }

    /// Run a parsed call as the person running it directly asked (`loom tool run`): a
    /// command that asks to leave the sandbox runs outside it, since that person is the
    /// one who would approve it.
    pub async fn run_as_asked(
        &self,
        name: &str,
        args: &ToolArgs,
        intent: &CallIntent,
        ctx: &ToolContext,
    ) -> ToolResult {
        if intent.as_command().is_some_and(|c| c.outside_sandbox) {
            let ctx = ToolContext {
                sandbox: SandboxSpec::off(),
                ..ctx.clone()
            };
            return self.run(name, args, &ctx).await;
        }
        self.run(name, args, ctx).await
    }

    /// Run a prepared call ([`ToolRegistry::prepare`]) with its typed arguments, without
    /// parsing them again: timed out, panic-safe and bounded. It runs in `ctx.sandbox` as
    /// the caller set it from the policy's ruling.
    pub async fn run(&self, name: &str, args: &ToolArgs, ctx: &ToolContext) -> ToolResult {
        let Some(tool) = self.get(name) else {
            return self.unknown(name);
        };
        let mut timeout = tool.timeout(args);
        if let (ToolKind::Write, Some(lsp)) = (tool.kind(), &ctx.lsp) {
            // A write waits for its diagnostics after writing; that wait never fails it.
            timeout += lsp.wait();
        }
        let call_ctx = ctx.child();
        let fut = std::panic::AssertUnwindSafe(tool.run(args, &call_ctx)).catch_unwind();
        let result = match tokio::time::timeout(timeout, fut).await {
            Ok(Ok(result)) => result,
            Ok(Err(panic)) => ToolResult::err(format!(
                "the {name} tool crashed ({}); this is a bug in Loom, not in your request — try \
                 a different approach",
                panic_message(&panic)
            )),
            Err(_) => {
                call_ctx.cancel.cancel();
                ToolError::TimedOut(timeout).into()
            }
        };
        self.bound(result, ctx)
    }

    /// For a write tool, the change a call given as JSON would make; `None` if the tool
    /// does not write.
    pub async fn preview(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> Option<Result<Vec<FileChange>, ToolError>> {
        let tool = self.get(name)?;
        let call = match args::canonical(name, args)
            .and_then(|(a, _)| parse_guarded(tool.as_ref(), name, a))
        {
            Ok((call, _)) => call,
            Err(e) => return Some(Err(e)),
        };
        self.changes(name, &call.args, ctx).await
    }

    /// For a write tool, the changes a prepared call would make, from its typed arguments;
    /// `None` if the tool does not write.
    pub async fn changes(
        &self,
        name: &str,
        args: &ToolArgs,
        ctx: &ToolContext,
    ) -> Option<Result<Vec<FileChange>, ToolError>> {
        let tool = self.get(name)?;
        let fut = std::panic::AssertUnwindSafe(tool.changes(args, ctx)).catch_unwind();
        match fut.await {
            Ok(r) => {
                if let Some(Ok(changes)) = &r {
                    super::diagnostics::warm(ctx, changes);
                }
                r
            }
            Err(panic) => Some(Err(ToolError::Other(format!(
                "the {name} tool crashed while computing its change ({})",
                panic_message(&panic)
            )))),
        }
    }

    /// Write a call's previewed changes (all hunks or the selected ones) as its result.
    pub async fn apply(
        &self,
        changes: Vec<FileChange>,
        selection: HunkSelection,
        ctx: &ToolContext,
    ) -> ToolResult {
        let changes = Arc::new(changes);
        let writing = changes.clone();
        let mut result =
            super::blocking("the write", move || change::apply_all(&writing, &selection))
                .await
                .unwrap_or_else(ToolResult::from);
        super::diagnostics::after_write(ctx, &changes, &mut result).await;
        super::editor_files::push_written(ctx, &changes, &result).await;
        self.bound(result, ctx)
    }

    fn bound(&self, mut result: ToolResult, ctx: &ToolContext) -> ToolResult {
        super::fit::fit(&mut result, ctx.limits.output_budget);
        result
    }
}

/// The boundary: `tool` parses the canonical `args` once, and says how they may be shown.
/// A tool that panics on odd arguments must not take the model's stream task (and with it
/// the turn) down: the call becomes an error the model reads.
fn parse_guarded(
    tool: &dyn Tool,
    name: &str,
    args: Value,
) -> Result<(ParsedCall, Value), ToolError> {
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let shown = tool.redact(&args);
        Ok::<_, ToolError>((tool.parse(args)?, shown))
    }));
    match parsed {
        Ok(result) => result,
        Err(panic) => Err(ToolError::Other(format!(
            "the {name} tool crashed reading its arguments ({}); this is a bug in Loom — try \
             different arguments",
            panic_message(&panic)
        ))),
    }
}

/// Add `note` as the last line of a result's output.
pub fn with_note(result: &mut ToolResult, note: &str) {
    if !result.output.is_empty() && !result.output.ends_with('\n') {
        result.output.push('\n');
    }
    result.output.push_str(note);
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::ToolLimits;
    use async_trait::async_trait;
    use serde_json::json;
    use std::time::Duration;

    struct Panicky;
    #[async_trait]
    impl Tool for Panicky {
        fn describe(&self, _args: &Value) -> Result<CallIntent, ToolError> {
            Ok(CallIntent::reads([]))
        }
        fn name(&self) -> &'static str {
            "panicky"
        }
        fn description(&self) -> &'static str {
            "panics"
        }
        fn parameters(&self) -> Value {
            json!({"type": "object"})
        }
        fn kind(&self) -> ToolKind {
            ToolKind::Read
        }
        fn default_timeout(&self) -> Duration {
            Duration::from_secs(1)
        }
        async fn execute(&self, _args: Value, _ctx: &ToolContext) -> ToolResult {
            panic!("boom")
        }
    }

    struct Slow;
    #[async_trait]
    impl Tool for Slow {
        fn describe(&self, _args: &Value) -> Result<CallIntent, ToolError> {
            Ok(CallIntent::reads([]))
        }
        fn name(&self) -> &'static str {
            "slow"
        }
        fn description(&self) -> &'static str {
            "sleeps"
        }
        fn parameters(&self) -> Value {
            json!({"type": "object"})
        }
        fn kind(&self) -> ToolKind {
            ToolKind::Read
        }
        fn default_timeout(&self) -> Duration {
            Duration::from_millis(50)
        }
        async fn execute(&self, _args: Value, ctx: &ToolContext) -> ToolResult {
            ctx.cancel.cancelled().await;
            ToolResult::ok("cancelled as expected")
        }
    }

    struct Loud;
    #[async_trait]
    impl Tool for Loud {
        fn describe(&self, _args: &Value) -> Result<CallIntent, ToolError> {
            Ok(CallIntent::reads([]))
        }
        fn name(&self) -> &'static str {
            "loud"
        }
        fn description(&self) -> &'static str {
            "prints a lot"
        }
        fn parameters(&self) -> Value {
            json!({"type": "object"})
        }
        fn kind(&self) -> ToolKind {
            ToolKind::Read
        }
        fn default_timeout(&self) -> Duration {
            Duration::from_secs(1)
        }
        async fn execute(&self, args: Value, _ctx: &ToolContext) -> ToolResult {
            let big = "line\n".repeat(1_000_000);
            match args["shape"].as_str() {
                Some("data") => ToolResult::ok("ok").with_data(json!({"content": big})),
                Some("error") => ToolResult::err(big),
                _ => ToolResult::ok(big),
            }
        }
    }

    fn ctx() -> (tempfile::TempDir, ToolContext) {
        let d = tempfile::tempdir().unwrap();
        let c = ToolContext::for_workspace(d.path()).unwrap();
        (d, c)
    }

    #[test]
    fn builtin_schemas_are_openai_functions() {
        let r = ToolRegistry::builtin();
        assert_eq!(
            r.names(),
            vec![
                "read_file",
                "write_file",
                "edit_file",
                "list_files",
                "search_files",
                "bash"
            ]
        );
        for s in r.schemas() {
            assert_eq!(s["type"], "function");
            assert!(s["function"]["description"].as_str().unwrap().len() > 40);
            assert_eq!(s["function"]["parameters"]["type"], "object");
            assert!(s["function"]["parameters"]["properties"].is_object());
        }
    }

    #[test]
    fn duplicate_names_are_refused() {
        let mut r = ToolRegistry::builtin();
        let err = r.register(Arc::new(super::super::bash::Bash)).unwrap_err();
        assert_eq!(err, RegistryError::Duplicate("bash".into()));
    }

    #[tokio::test]
    async fn unknown_tool_lists_valid_names() {
        let (_d, c) = ctx();
        let r = ToolRegistry::builtin()
            .execute_as_person("rm_rf", json!({}), &c)
            .await;
        assert!(!r.success);
        let err = r.error.unwrap();
        assert!(err.contains("unknown tool `rm_rf`"));
        assert!(err.contains("read_file, write_file, edit_file"));
    }

    #[tokio::test]
    async fn panics_become_results() {
        let (_d, c) = ctx();
        let mut r = ToolRegistry::new();
        r.register(Arc::new(Panicky)).unwrap();
        let res = r.execute_as_person("panicky", json!({}), &c).await;
        assert!(!res.success);
        assert!(res.error.unwrap().contains("crashed (boom)"));
    }

    #[tokio::test]
    async fn timeouts_cancel_and_report() {
        let (_d, c) = ctx();
        let mut r = ToolRegistry::new();
        r.register(Arc::new(Slow)).unwrap();
        let res = r.execute_as_person("slow", json!({}), &c).await;
        assert!(res.error.unwrap().contains("timed out after 50ms"));
        assert!(
            !c.cancel.is_cancelled(),
            "only the call's child token is cancelled"
        );
    }

    #[tokio::test]
    async fn output_is_bounded() {
        let (_d, c) = ctx();
        let mut r = ToolRegistry::new();
        r.register(Arc::new(Loud)).unwrap();
        let res = r.execute_as_person("loud", json!({}), &c).await;
        assert!(res.output.len() <= c.limits.output_budget + 100);
        assert!(res.output.contains("omitted"));
    }

    /// Issue 23: only `output` was bounded, so `data` (an MCP server's structured content,
    /// a command's streams) and `error` reached the model whole.
    #[tokio::test]
    async fn structured_data_and_errors_are_bounded_with_the_output() {
        let (_d, mut c) = ctx();
        c.limits = Arc::new(ToolLimits {
            output_budget: 8192,
            ..ToolLimits::default()
        });
        let mut r = ToolRegistry::new();
        r.register(Arc::new(Loud)).unwrap();
        for shape in ["data", "error", "output"] {
            let res = r
                .execute_as_person("loud", json!({"shape": shape}), &c)
                .await;
            let json = serde_json::to_string(&res).unwrap();
            assert!(json.len() <= 8192, "{shape}: {} bytes", json.len());
            assert!(json.contains("omitted"), "{shape}");
        }
    }

    #[tokio::test]
    async fn non_object_arguments_are_refused() {
        let (_d, c) = ctx();
        let res = ToolRegistry::builtin()
            .execute_as_person("read_file", json!([1, 2]), &c)
            .await;
        assert!(res.error.unwrap().contains("must be a JSON object"));
    }

    #[test]
    fn prepare_normalises_once_and_describes() {
        let r = ToolRegistry::builtin();
        let plain = r.prepare("bash", json!({"command": "ls"})).unwrap();
        let double = r.prepare("bash", json!("{\"command\": \"ls\"}")).unwrap();
        assert_eq!(
            plain, double,
            "double-encoded arguments become the same call"
        );
        assert_eq!(plain.intent.as_command().unwrap().command, "ls");
        let w = r
            .prepare("write_file", json!({"path": "a.txt", "content": "x"}))
            .unwrap();
        assert_eq!(w.intent.written_paths(), ["a.txt"]);
        for (name, args, expected) in [
            ("bash", json!({"comand": "ls"}), "unknown field `comand`"),
            (
                "bash",
                json!({"cmd": "ls", "command": "ls"}),
                "`cmd` is another name for `command`, and both were given",
            ),
            ("bash", json!({"command": " "}), "command is empty"),
            ("read_file", json!([1]), "must be a JSON object"),
            ("nope", json!({}), "unknown tool `nope`"),
        ] {
            let err = r.prepare(name, args).unwrap_err().to_string();
            assert!(err.contains(expected), "{name}: {err}");
        }
    }

    /// Issue 24: `edit_file {path, old_string, new_string}` failed with "unknown field
    /// `old_string`"; through `loom tool run` (the registry's own door) it now edits, and the
    /// result names the mapping.
    #[tokio::test]
    async fn aliased_arguments_run_and_the_result_says_so() {
        let (d, c) = ctx();
        std::fs::write(d.path().join("a.txt"), "one\n").unwrap();
        let r = ToolRegistry::builtin();
        let args = json!({"file_path": "a.txt", "old_string": "one", "new_string": "two"});
        let changes = r
            .preview("edit_file", args.clone(), &c)
            .await
            .unwrap()
            .unwrap();
        let res = r.apply(changes, HunkSelection::All, &c).await;
        assert!(res.success, "{res:?}");
        assert_eq!(
            std::fs::read_to_string(d.path().join("a.txt")).unwrap(),
            "two\n"
        );
        let res = r
            .execute_as_person("bash", json!({"cmd": "echo hi", "timeout_secs": null}), &c)
            .await;
        assert!(res.success, "{res:?}");
        assert!(
            serde_json::to_string(&res).unwrap().contains("hi\\n"),
            "{res:?}"
        );
        assert!(
            res.output
                .ends_with("note: mapped cmd → command (use these argument names next time)"),
            "{}",
            res.output
        );
        let p = r.prepare("edit_file", args).unwrap();
        assert_eq!(p.args["old_str"], "one");
        assert!(p.note.unwrap().contains("old_string → old_str"));
    }

    #[test]
    fn model_json_is_compact() {
        let r = ToolResult::ok("hi");
        assert_eq!(
            crate::tools::fit::model_json(&r, 8192),
            r#"{"success":true,"output":"hi"}"#
        );
        let e = ToolResult::err("bad");
        assert_eq!(
            crate::tools::fit::model_json(&e, 8192),
            r#"{"success":false,"output":"","error":"bad"}"#
        );
    }
}
