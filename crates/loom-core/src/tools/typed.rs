//! Typed tool calls: a tool declares its arguments as a Rust type, the model's JSON is
//! parsed into that type once, at the boundary, and everything after reads the typed value.
//!
//! A tool implements [`TypedTool`]; the blanket impl makes it a [`Tool`], the object-safe
//! view the registry keeps. [`Tool::parse`] is the boundary: it parses the canonical JSON
//! into the tool's `Args` (the schema the model sees is derived from the same type, so the
//! two cannot drift apart) and asks the tool what the call will touch. The parsed value
//! travels inside [`ToolArgs`] next to the JSON it came from (which events, the transcript
//! and the screen show), so running the call, previewing its change and choosing its
//! timeout read the typed value and never parse again.

use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{CallIntent, FileChange, Tool, ToolContext, ToolError, ToolKind, ToolResult, args};

/// A tool call's arguments after the boundary: the canonical JSON (what is shown and
/// recorded) and, once the tool parsed it, the tool's typed value.
#[derive(Clone)]
pub struct ToolArgs {
    value: Value,
    typed: Option<Arc<dyn Any + Send + Sync>>,
}

impl ToolArgs {
    /// Arguments the tool parsed into `typed` from `value`.
    pub fn parsed<A: Any + Send + Sync>(value: Value, typed: A) -> ToolArgs {
        ToolArgs {
            value,
            typed: Some(Arc::new(typed)),
        }
    }

    /// Arguments no typed tool parsed: those of a tool whose arguments are free JSON (an
    /// MCP server's tool), or of a call that never runs (its arguments did not parse).
    pub fn untyped(value: Value) -> ToolArgs {
        ToolArgs { value, typed: None }
    }

    /// The canonical JSON the arguments were parsed from.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The typed value, when these arguments were parsed into `A`.
    pub fn typed<A: Any + Send + Sync>(&self) -> Option<Arc<A>> {
        self.typed.clone()?.downcast::<A>().ok()
    }
}

impl From<Value> for ToolArgs {
    fn from(value: Value) -> ToolArgs {
        ToolArgs::untyped(value)
    }
}

impl std::ops::Deref for ToolArgs {
    type Target = Value;
    fn deref(&self) -> &Value {
        &self.value
    }
}

impl std::fmt::Debug for ToolArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.value.fmt(f)
    }
}

/// Two calls' arguments are the same when their canonical JSON is: the typed value is
/// parsed from it, so it cannot differ.
impl PartialEq for ToolArgs {
    fn eq(&self, other: &ToolArgs) -> bool {
        self.value == other.value
    }
}

impl Serialize for ToolArgs {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(s)
    }
}

/// A call that passed the boundary: its arguments (typed) and what it will touch.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedCall {
    /// The arguments, parsed.
    pub args: ToolArgs,
    /// What the call will touch, as the tool describes it from the typed arguments.
    pub intent: CallIntent,
}

/// A tool whose arguments are a Rust type. Implement this, not [`Tool`]: the blanket impl
/// parses the model's JSON into [`TypedTool::Args`] once and hands every method the typed
/// value.
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    /// The arguments: serde reads them (with `deny_unknown_fields`, so a misspelt name is
    /// an error the model reads) and schemars derives the schema the model sees.
    type Args: DeserializeOwned + JsonSchema + Send + Sync + 'static;
    /// The name the model calls it by.
    fn name(&self) -> &str;
    /// What it does and how to use it, written for the model.
    fn description(&self) -> &str;
    /// JSON Schema of the arguments, derived from [`TypedTool::Args`].
    fn parameters(&self) -> Value {
        args::schema_for::<Self::Args>()
    }
    /// What kind of effect it has.
    fn kind(&self) -> ToolKind;
    /// How long a call may take before it is cancelled.
    fn default_timeout(&self) -> Duration;
    /// What the type cannot say about the arguments (an empty command, a count out of
    /// range): checked right after parsing, wherever a call enters.
    fn check(&self, _args: &Self::Args) -> Result<(), ToolError> {
        Ok(())
    }
    /// What a call with these (checked) arguments will touch, for the policy and the
    /// approval; it may read the tool's state (the open page, the stored jobs), so a call
    /// it refuses is refused before anything is decided.
    fn intent(&self, args: &Self::Args) -> Result<CallIntent, ToolError>;
    /// The arguments as they may be shown and recorded ([`Tool::redact`]).
    fn redact(&self, args: &Value) -> Value {
        crate::secrets::mask_json(args)
    }
    /// The timeout of this call (bash reads its `timeout_secs`).
    fn timeout(&self, _args: &Self::Args) -> Duration {
        self.default_timeout()
    }
    /// Run the call. Failures are returned as results, never panics.
    async fn run(&self, args: Arc<Self::Args>, ctx: &ToolContext) -> ToolResult;
    /// For write tools: every file change this call would make, computed without touching
    /// disk. `None` for tools that do not write files.
    async fn changes(
        &self,
        _args: Arc<Self::Args>,
        _ctx: &ToolContext,
    ) -> Option<Result<Vec<FileChange>, ToolError>> {
        None
    }
}

/// The typed value of `args` for `tool`: the one the boundary parsed, or, for arguments
/// that did not come through [`Tool::parse`] (a direct call), parsed and checked now the
/// same way.
fn typed_args<T: TypedTool>(tool: &T, args: &ToolArgs) -> Result<Arc<T::Args>, ToolError> {
    match args.typed::<T::Args>() {
        Some(typed) => Ok(typed),
        None => parse_checked(tool, args.value.clone()).map(Arc::new),
    }
}

/// JSON to the tool's type, then [`TypedTool::check`]ed: the errors a model reads for
/// arguments that do not fit.
fn parse_checked<T: TypedTool>(tool: &T, args: Value) -> Result<T::Args, ToolError> {
    let typed: T::Args = args::parse(args)?;
    tool.check(&typed)?;
    Ok(typed)
}

#[async_trait]
impl<T: TypedTool> Tool for T {
    fn name(&self) -> &str {
        TypedTool::name(self)
    }
    fn description(&self) -> &str {
        TypedTool::description(self)
    }
    fn parameters(&self) -> Value {
        TypedTool::parameters(self)
    }
    fn kind(&self) -> ToolKind {
        TypedTool::kind(self)
    }
    fn default_timeout(&self) -> Duration {
        TypedTool::default_timeout(self)
    }
    fn parse(&self, args: Value) -> Result<ParsedCall, ToolError> {
        let args = args::normalise(args)?;
        let typed = parse_checked(self, args.clone())?;
        let intent = self.intent(&typed)?;
        Ok(ParsedCall {
            args: ToolArgs::parsed(args, typed),
            intent,
        })
    }
    fn describe(&self, args: &Value) -> Result<CallIntent, ToolError> {
        Tool::parse(self, args.clone()).map(|call| call.intent)
    }
    fn redact(&self, args: &Value) -> Value {
        TypedTool::redact(self, args)
    }
    fn timeout_for(&self, args: &Value) -> Duration {
        match parse_checked(self, args.clone()) {
            Ok(typed) => TypedTool::timeout(self, &typed),
            Err(_) => TypedTool::default_timeout(self),
        }
    }
    fn timeout(&self, args: &ToolArgs) -> Duration {
        match typed_args(self, args) {
            Ok(typed) => TypedTool::timeout(self, &typed),
            Err(_) => TypedTool::default_timeout(self),
        }
    }
    async fn run(&self, args: &ToolArgs, ctx: &ToolContext) -> ToolResult {
        match typed_args(self, args) {
            Ok(typed) => TypedTool::run(self, typed, ctx).await,
            Err(e) => e.into(),
        }
    }
    /// A direct call: parsed and checked, then run; its intent is for deciding about a
    /// call, and nothing decides here.
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        match parse_checked(self, args) {
            Ok(typed) => TypedTool::run(self, Arc::new(typed), ctx).await,
            Err(e) => e.into(),
        }
    }
    async fn changes(
        &self,
        args: &ToolArgs,
        ctx: &ToolContext,
    ) -> Option<Result<Vec<FileChange>, ToolError>> {
        match typed_args(self, args) {
            Ok(typed) => TypedTool::changes(self, typed, ctx).await,
            Err(e) => Some(Err(e)),
        }
    }
}

/// The `run` of every write tool: compute the change with `changes`, then write exactly
/// that change.
pub async fn apply_changes(
    tool: &str,
    changes: Option<Result<Vec<FileChange>, ToolError>>,
    ctx: &super::ToolContext,
) -> ToolResult {
    match changes {
        Some(Ok(changes)) => {
            let shared = std::sync::Arc::new(changes);
            let writing = shared.clone();
            let mut result = super::blocking(tool, move || {
                super::change::apply_all(&writing, &super::change::HunkSelection::All)
            })
            .await
            .unwrap_or_else(ToolResult::from);
            super::diagnostics::after_write(ctx, &shared, &mut result).await;
            super::editor_files::push_written(ctx, &shared, &result).await;
            result
        }
        Some(Err(e)) => e.into(),
        None => ToolResult::err(format!("{tool} has no preview")),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde::{Deserialize, Deserializer};
    use serde_json::json;

    use super::*;
    use crate::tools::ToolRegistry;

    /// How many times [`Counted`] was deserialised.
    static PARSES: AtomicUsize = AtomicUsize::new(0);

    /// Arguments that count their parses.
    #[derive(Debug, JsonSchema)]
    struct Counted {
        /// Anything.
        #[allow(dead_code)]
        text: String,
    }

    impl<'de> Deserialize<'de> for Counted {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Counted, D::Error> {
            /// The fields.
            #[derive(Deserialize)]
            struct Raw {
                text: String,
            }
            PARSES.fetch_add(1, Ordering::SeqCst);
            Raw::deserialize(d).map(|r| Counted { text: r.text })
        }
    }

    struct Echo;

    #[async_trait]
    impl TypedTool for Echo {
        type Args = Counted;
        fn name(&self) -> &'static str {
            "echo"
        }
        fn description(&self) -> &'static str {
            "echoes"
        }
        fn kind(&self) -> ToolKind {
            ToolKind::Read
        }
        fn default_timeout(&self) -> Duration {
            Duration::from_secs(5)
        }
        fn intent(&self, _args: &Counted) -> Result<CallIntent, ToolError> {
            Ok(CallIntent::reads([]))
        }
        async fn run(&self, args: Arc<Counted>, _ctx: &ToolContext) -> ToolResult {
            ToolResult::ok(args.text.clone())
        }
    }

    /// Issue 27: a call's arguments were parsed again by every step (describe, timeout,
    /// execute). A prepared call is parsed once, at the boundary; choosing its timeout and
    /// running it read the typed value.
    #[tokio::test]
    async fn a_prepared_call_is_parsed_once() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        let mut registry = ToolRegistry::new();
        registry.register(Arc::new(Echo)).unwrap();
        let call = registry.prepare("echo", json!({"text": "hi"})).unwrap();
        assert_eq!(PARSES.load(Ordering::SeqCst), 1);
        let result = registry.run("echo", &call.args, &ctx).await;
        assert_eq!(result.output, "hi");
        assert_eq!(PARSES.load(Ordering::SeqCst), 1, "running parsed again");
        assert!(call.args.typed::<Counted>().is_some());
        assert!(
            call.args.typed::<String>().is_none(),
            "another type is not there"
        );
    }
}
