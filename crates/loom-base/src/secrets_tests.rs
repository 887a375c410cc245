//! What looks like a credential is masked; what does not is left alone.

use super::*;
use proptest::prelude::*;
use serde_json::json;

#[test]
fn form_bodies_and_query_strings_are_masked_field_by_field() {
    assert_eq!(
        mask_text(
            "curl -d 'grant_type=password&client_id=app&client_secret=s3cr3t&password=hunter2' https://id.example/token"
        ),
        "curl -d 'grant_type=password&client_id=app&client_secret=****&password=****' https://id.example/token"
    );
    assert_eq!(
        mask_text("curl 'https://api.example/v1?q=rust&access_token=abc.def'"),
        "curl 'https://api.example/v1?q=rust&access_token=****'"
    );
    assert_eq!(
        mask_text("API_KEY=sk-123 ./deploy --password=pw1 --user=bob"),
        "API_KEY=**** ./deploy --password=**** --user=bob"
    );
}

#[test]
fn json_fields_in_text_are_masked_however_they_are_quoted() {
    assert_eq!(
        mask_text(r#"curl -d '{"username": "bob", "password": "hunter2", "n": 1}'"#),
        r#"curl -d '{"username": "bob", "password": "****", "n": 1}'"#
    );
    assert_eq!(
        mask_text(r#"curl -d "{\"api_key\":\"sk-9\",\"q\":\"x\"}""#),
        r#"curl -d "{\"api_key\":\"****\",\"q\":\"x\"}""#
    );
    assert_eq!(
        mask_text("python -c \"print({'client_secret': 'abc', 'id': 'x'})\""),
        "python -c \"print({'client_secret': '****', 'id': 'x'})\""
    );
    assert_eq!(
        mask_text(r#"{"token": "a\"b", "x": "y"}"#),
        r#"{"token": "****", "x": "y"}"#
    );
}

#[test]
fn credential_headers_keep_their_scheme() {
    assert_eq!(
        mask_text(
            "curl -H 'Authorization: Bearer abc.def' -H \"X-Api-Key: k1\" -H 'Accept: text/html' u"
        ),
        "curl -H 'Authorization: Bearer ****' -H \"X-Api-Key: ****\" -H 'Accept: text/html' u"
    );
}

#[test]
fn ordinary_text_is_left_alone() {
    for text in [
        "cargo test --all-features",
        "git commit -m 'Author: fix the monkey: patch'",
        "ls -la | grep key",
        "if [ \"$a\" == \"b\" ]; then echo ok; fi",
        r#"{"key": "build", "content": "cargo build"}"#,
        "https://docs.rs/serde/latest/serde/?search=Value",
    ] {
        assert_eq!(mask_text(text), text);
        assert!(matches!(mask_text(text), Cow::Borrowed(_)), "{text}");
    }
}

#[test]
fn json_arguments_mask_secret_fields_at_any_depth_and_text_everywhere() {
    let args = json!({
        "method": "POST",
        "headers": {"Authorization": "Bearer abc", "Accept": "application/json"},
        "body": {"user": "bob", "credentials": {"password": "pw", "otp": "123"}, "max_tokens": 100},
        "command": "curl -d 'password=pw'",
        "key": "a memory key",
    });
    let shown = mask_json(&args);
    assert_eq!(shown["headers"]["Authorization"], "Bearer ****");
    assert_eq!(shown["headers"]["Accept"], "application/json");
    assert_eq!(
        shown["body"]["credentials"],
        json!({"password": "****", "otp": "****"})
    );
    assert_eq!(shown["body"]["user"], "bob");
    assert_eq!(shown["body"]["max_tokens"], 100);
    assert_eq!(shown["command"], "curl -d 'password=****'");
    assert_eq!(shown["key"], "a memory key");
    assert_eq!(mask_json(&shown), shown, "masking twice changes nothing");
}

proptest! {
    // Invariant: a secret value given in any of the shapes never survives masking.
    #[test]
    fn a_secret_in_any_shape_never_survives(
        secret in "[A-Za-z0-9]{8,20}",
        field in prop::sample::select(vec!["password", "client_secret", "access_token", "api_key"]),
        shape in 0usize..5,
    ) {
        let text = match shape {
            0 => format!("curl -d 'a=1&{field}={secret}&b=2' https://x"),
            1 => format!("curl -d '{{\"{field}\": \"{secret}\"}}'"),
            2 => format!("curl -d \"{{\\\"{field}\\\":\\\"{secret}\\\"}}\""),
            3 => format!("curl 'https://x/?{field}={secret}'"),
            _ => format!("export {}={secret}", field.to_uppercase()),
        };
        let shown = mask_text(&text);
        prop_assert!(!shown.contains(&secret), "{} -> {}", text, shown);
    }
}
