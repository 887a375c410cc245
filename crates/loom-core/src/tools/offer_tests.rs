use serde_json::json;

use super::*;
use crate::tools::load_tools::LoadTools;
use crate::tools::{Tool, ToolContext};

fn schema(name: &str, description: &str) -> Value {
    json!({"type": "function", "function": {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
    }})
}

/// The built-in shape: core tools, deferred ones, and load_tools.
fn all() -> Vec<Value> {
    vec![
        schema("read_file", "Read a file."),
        schema("bash", "Run a command."),
        schema(
            "web_fetch",
            "Fetch a web page as Markdown. Follows redirects.",
        ),
        schema("memory_store", "Store a fact in long-term memory."),
        schema("load_tools", "Load more tools."),
        schema("mcp__git__log", "Show the git log of the repository."),
    ]
}

fn names(schemas: &[Value]) -> Vec<&str> {
    schemas.iter().map(name_of).collect()
}

fn load_description(schemas: &[Value]) -> String {
    schemas
        .iter()
        .find(|s| name_of(s) == LOAD_TOOLS)
        .map(|s| s["function"]["description"].as_str().unwrap().to_string())
        .unwrap_or_default()
}

#[test]
fn core_tools_and_a_catalogue_are_sent_and_loaded_tools_join_them() {
    let offer = ToolOffer::new([]);
    let full = offer.select(&all(), Level::Full);
    assert_eq!(names(&full), vec!["read_file", "bash", "load_tools"]);
    let catalogue = load_description(&full);
    assert!(catalogue.starts_with("Load more tools."), "{catalogue}");
    assert!(
        catalogue.contains("\nweb_fetch — Fetch a web page as Markdown\n"),
        "{catalogue}"
    );
    assert!(
        catalogue.contains("\nmcp__git__log — Show the git log"),
        "{catalogue}"
    );
    assert_eq!(
        offer.load(&["web_fetch".into(), "nope".into()]),
        vec!["web_fetch"]
    );
    assert_eq!(offer.take_unrecorded(), vec!["web_fetch"]);
    assert!(offer.take_unrecorded().is_empty());
    let after = offer.select(&all(), Level::Full);
    assert_eq!(
        names(&after),
        vec!["read_file", "bash", "web_fetch", "load_tools"]
    );
    assert!(!load_description(&after).contains("web_fetch"));
    assert!(!offer.is_unloaded("web_fetch") && offer.is_unloaded("memory_store"));
}

#[test]
fn each_level_leaves_out_more() {
    let offer = ToolOffer::new(["memory_store".to_string()]);
    let names_only = offer.select(&all(), Level::Names);
    let catalogue = load_description(&names_only);
    assert!(
        catalogue.ends_with("Tools to load: web_fetch, mcp__git__log"),
        "{catalogue}"
    );
    assert_eq!(
        names(&offer.select(&all(), Level::NoCatalogue)),
        vec!["read_file", "bash", "memory_store"]
    );
    assert_eq!(
        names(&offer.select(&all(), Level::Core)),
        vec!["read_file", "bash"]
    );
}

#[test]
fn with_everything_loaded_no_catalogue_is_sent() {
    let offer = ToolOffer::new(["web_fetch", "memory_store", "mcp__git__log"].map(String::from));
    let sent = offer.select(&all(), Level::Full);
    assert!(!names(&sent).contains(&LOAD_TOOLS), "{:?}", names(&sent));
}

/// The catalogue is bounded however many MCP tools there are: the rest are counted and
/// found with a query.
#[test]
fn a_catalogue_of_many_tools_is_bounded_and_counts_the_rest() {
    let mut many = all();
    for i in 0..200 {
        many.push(schema(
            &format!("mcp__srv__tool_{i}"),
            &format!("Does thing number {i} with a long explanation of what the thing is."),
        ));
    }
    let offer = ToolOffer::new([]);
    for level in [Level::Full, Level::Names] {
        let catalogue = load_description(&offer.select(&many, level));
        assert!(
            catalogue.len() <= "Load more tools.\n".len() + CATALOGUE_MAX_CHARS + 80,
            "{level:?}: {} chars",
            catalogue.len()
        );
        let listed = catalogue.matches("mcp__srv__tool_").count() + 3;
        assert!(listed <= CATALOGUE_MAX_ENTRIES, "{level:?}: {listed}");
        let more = format!("… and {} more not listed", 203 - listed);
        assert!(catalogue.contains(&more), "{level:?}: {catalogue}");
    }
    assert_eq!(
        offer.search("thing number 150", 5)[0],
        "mcp__srv__tool_150",
        "a query finds unlisted tools"
    );
    assert_eq!(
        offer.search("tool_7", 5)[0],
        "mcp__srv__tool_7",
        "a name spelled out wins over the names that contain its words"
    );
}

#[tokio::test]
async fn load_tools_loads_by_name_or_query_and_says_what_it_did() {
    let offer = ToolOffer::new([]);
    offer.select(&all(), Level::Full);
    let tool = LoadTools(offer.clone());
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::for_workspace(dir.path()).unwrap();
    let r = tool
        .execute(json!({"names": ["web_fetch", "read_file"]}), &ctx)
        .await;
    assert!(r.success, "{r:?}");
    assert!(r.output.contains("Loaded web_fetch"), "{}", r.output);
    assert!(
        r.output.contains("Already available: read_file"),
        "{}",
        r.output
    );
    assert_eq!(r.data.unwrap()["loaded"], json!(["web_fetch"]));
    let r = tool.execute(json!({"query": "git log"}), &ctx).await;
    assert!(r.output.contains("Loaded mcp__git__log"), "{r:?}");
    let r = tool.execute(json!({"names": ["teleport"]}), &ctx).await;
    let err = r.error.unwrap();
    assert!(err.contains("no tool is named teleport"), "{err}");
    assert!(err.contains("memory_store"), "{err}");
    let r = tool.execute(json!({"query": "zzz"}), &ctx).await;
    assert!(r.error.unwrap().contains("no tool matches \"zzz\""));
    let r = tool.execute(json!({}), &ctx).await;
    assert!(r.error.unwrap().contains("give names"));
    assert_eq!(offer.loaded(), vec!["mcp__git__log", "web_fetch"]);
}

#[test]
fn tools_as_text_name_their_arguments_and_the_call_markup() {
    let text = as_text(&all()[..2]);
    assert!(text.contains("<tool_call>"), "{text}");
    assert!(text.contains("\n- read_file{x}: Read a file."), "{text}");
    assert!(text.contains("\n- bash{x}: Run a command."), "{text}");
}

#[test]
fn summaries_end_at_the_first_break_and_are_bounded() {
    for (description, expected) in [
        (
            "Read a web page (http/https) and return it.",
            "Read a web page",
        ),
        (
            "Ask a second, usually stronger model a hard question (design).",
            "Ask a second, usually stronger model a hard question",
        ),
        (
            "Store a fact in long-term memory, kept across sessions.",
            "Store a fact in long-term memory",
        ),
        ("List jobs: id, schedule.", "List jobs"),
        ("Fetch.", "Fetch"),
        (
            "Do a thing that has an extraordinarily long description without any break in it at all",
            "Do a thing that has an extraordinarily long description…",
        ),
    ] {
        assert_eq!(summary(description), expected, "{description}");
    }
}
