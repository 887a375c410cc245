//! Images attached to a message (issue 16): sent as `image_url` parts with a `data:` URL,
//! refused clearly (and taken out of the conversation) by a model that cannot take them.

use std::path::Path;

use serde_json::Value;

use crate::exec::loom_command;
use crate::support::{self, ScriptedServer};

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

async fn exec_with_image(
    dir: &Path,
    server: &ScriptedServer,
    image: &Path,
) -> (i32, Vec<Value>, String) {
    let home = dir.join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let out = loom_command(&home)
        .args(["exec", "--json", "--model", "scripted-model", "--base-url"])
        .arg(server.base_url())
        .arg("--image")
        .arg(image)
        .arg("-C")
        .arg(dir)
        .arg("what is in this picture?")
        .output()
        .await
        .unwrap();
    let events = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    (
        out.status.code().unwrap_or(-1),
        events,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn an_image_goes_to_the_model_as_a_data_url_part() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("dot.png");
    std::fs::write(&png, PNG).unwrap();
    let server = ScriptedServer::start(vec![support::text_reply("A single dot.")]).await;
    let (code, events, stderr) = exec_with_image(dir.path(), &server, &png).await;
    assert_eq!(code, 0, "{stderr}\n{events:#?}");
    let user = &server.requests()[0]["messages"][1];
    assert_eq!(user["role"], "user");
    let parts = user["content"].as_array().expect("content parts");
    assert_eq!(parts[0]["type"], "text");
    assert_eq!(parts[0]["text"], "what is in this picture?");
    assert_eq!(parts[1]["type"], "image_url");
    let url = parts[1]["image_url"]["url"].as_str().unwrap();
    assert!(
        url.starts_with("data:image/png;base64,iVBORw0KGgo"),
        "{url}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_without_vision_is_explained_and_the_image_taken_out() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("dot.png");
    std::fs::write(&png, PNG).unwrap();
    let server = ScriptedServer::start(vec![support::status(
        400,
        "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj",
        None,
    )])
    .await;
    let (code, events, stderr) = exec_with_image(dir.path(), &server, &png).await;
    assert_ne!(code, 0);
    let said = events
        .iter()
        .filter(|e| e["type"] == "error")
        .map(|e| e["message"].as_str().unwrap_or("").to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        said.contains("does not accept images (dot.png)"),
        "{said}\n{stderr}"
    );
    assert!(
        said.contains("mmproj"),
        "the server's words are kept: {said}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_that_is_not_an_image_is_refused_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("notes.png");
    std::fs::write(&fake, "just text").unwrap();
    let server = ScriptedServer::start(vec![]).await;
    let (code, _, stderr) = exec_with_image(dir.path(), &server, &fake).await;
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("not a PNG, JPEG, GIF or WebP image"),
        "{stderr}"
    );
    assert!(server.requests().is_empty());
}
