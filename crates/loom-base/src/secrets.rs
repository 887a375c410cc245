//! Credentials masked where a call is recorded and shown: the transcript, `loom exec
//! --json` events, the screen. A call still runs with what the model gave.
//!
//! What a credential looks like, from its name: header names (`Authorization`, `Cookie`,
//! anything with `token`, `secret`, `password` …), query and form field names (`key=`,
//! `client_secret=`, `access_token=` …), and JSON field names (`"password": …`). Text is
//! searched for the shapes credentials travel in: `name=value` pairs (query strings, form
//! bodies such as `curl -d 'client_secret=…&password=…'`, shell assignments), JSON fields in
//! text (`{"api_key": "…"}`, escaped inside a shell string too) and credential headers
//! (`-H 'Authorization: Bearer …'`). Masking keeps the shape (`password=****`, `Bearer
//! ****`) so a person can still see what kind of credential went where.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_json::Value;

/// What a masked value is replaced with.
pub const MASK: &str = "****";

/// Header names whose values are credentials.
pub fn is_secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie"
    ) || [
        "token",
        "secret",
        "key",
        "password",
        "passwd",
        "session",
        "auth",
        "signature",
        "credential",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// Query parameter (or form field) names whose values are credentials.
pub fn is_secret_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "key" | "sig" | "code" | "pass" | "pwd" | "cx" | "jwt" | "auth" | "apikey"
    ) || [
        "token",
        "secret",
        "password",
        "passwd",
        "signature",
        "api_key",
        "api-key",
        "apikey",
        "session",
        "credential",
        "access_key",
        "private",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// Field names (of JSON, or a header in free text) whose values are credentials. Narrower
/// than a query parameter: `key`, `code` and `session` name ordinary arguments of tools (a
/// memory's key, code to run), and `author` or `monkey` are no credentials.
pub fn is_secret_field(name: &str) -> bool {
    let n = name.trim_start_matches('-').to_ascii_lowercase();
    matches!(
        n.as_str(),
        "authorization"
            | "proxy-authorization"
            | "cookie"
            | "set-cookie"
            | "auth"
            | "jwt"
            | "pass"
            | "pwd"
            | "x-api-key"
            | "api-key"
            | "x-auth"
    ) || [
        "token",
        "secret",
        "password",
        "passwd",
        "api_key",
        "apikey",
        "credential",
        "private_key",
        "access_key",
        "signature",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// `name=value`: a query string, a form body, a shell assignment, a `--flag=value`.
static PAIR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?P<head>(?P<name>[A-Za-z0-9_.\-\[\]]+)=)(?P<value>[^&\s'"`;,)<>|]+)(?P<tail>)"#)
        .unwrap()
});

/// A JSON field with a string value in text: quoted with `"`, with `\"` (inside a shell or
/// JSON string) or with `'` (a Python dict).
static JSON_FIELDS: LazyLock<[Regex; 3]> = LazyLock::new(|| {
    let name = r"[A-Za-z0-9_.\-]+";
    [
        Regex::new(&format!(
            r#"(?P<head>"(?P<name>{name})"\s*:\s*")(?P<value>(?:[^"\\]|\\.)*)(?P<tail>")"#
        ))
        .unwrap(),
        Regex::new(&format!(
            r#"(?P<head>\\"(?P<name>{name})\\"\s*:\s*\\")(?P<value>(?:[^"\\]|\\[^"])*)(?P<tail>\\")"#
        ))
        .unwrap(),
        Regex::new(&format!(
            r#"(?P<head>'(?P<name>{name})'\s*:\s*')(?P<value>[^']*)(?P<tail>')"#
        ))
        .unwrap(),
    ]
});

/// A credential header in quotes or at the start of the text (`'Authorization: Bearer x'`),
/// its scheme kept.
static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?P<head>(?:^|['"])(?P<name>[A-Za-z0-9\-]+):[ \t]*(?:[A-Za-z][A-Za-z0-9\-]{0,15}[ \t]+)?)(?P<value>[^'"\s][^'"\r\n]*)(?P<tail>)"#,
    )
    .unwrap()
});

/// `text` with the credentials in it masked (see the module docs); borrowed when there
/// were none.
pub fn mask_text(text: &str) -> Cow<'_, str> {
    if !text.contains(['=', ':']) {
        return Cow::Borrowed(text);
    }
    let mut out: Cow<'_, str> = Cow::Borrowed(text);
    for re in JSON_FIELDS.iter() {
        out = mask_matches(out, re, is_secret_field);
    }
    out = mask_matches(out, &HEADER, is_secret_field);
    mask_matches(out, &PAIR, is_secret_param)
}

/// `text` with the `value` of each match of `re` whose `name` is `secret` masked, its
/// `head` and `tail` kept.
fn mask_matches<'a>(text: Cow<'a, str>, re: &Regex, secret: fn(&str) -> bool) -> Cow<'a, str> {
    let hit = |c: &Captures| secret(&c["name"]);
    if !re.captures_iter(&text).any(|c| hit(&c)) {
        return text;
    }
    let masked = re
        .replace_all(&text, |c: &Captures| {
            if hit(c) {
                format!("{}{MASK}{}", &c["head"], &c["tail"])
            } else {
                c[0].to_string()
            }
        })
        .into_owned();
    Cow::Owned(masked)
}

/// A call's arguments as they may be recorded: every string value under a field named like
/// a credential masked (at any depth), and the credentials in every other string masked
/// ([`mask_text`]).
pub fn mask_json(args: &Value) -> Value {
    match args {
        Value::String(s) => match mask_text(s) {
            Cow::Borrowed(_) => args.clone(),
            Cow::Owned(masked) => Value::String(masked),
        },
        Value::Array(items) => Value::Array(items.iter().map(mask_json).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let shown = if is_secret_field(k) {
                        mask_all_strings(v)
                    } else {
                        mask_json(v)
                    };
                    (k.clone(), shown)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A credential as it may be shown: the scheme of an `Authorization`-style value kept
/// (`Bearer ****`), the rest masked.
pub fn mask_credential(value: &str) -> String {
    match value.split_once(' ') {
        Some((scheme, rest))
            if !rest.trim().is_empty()
                && scheme.len() <= 16
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-') =>
        {
            format!("{scheme} {MASK}")
        }
        _ => MASK.to_string(),
    }
}

/// `v` with every string in it masked ([`mask_credential`]).
fn mask_all_strings(v: &Value) -> Value {
    match v {
        Value::String(s) if s == MASK || s.ends_with(&format!(" {MASK}")) => v.clone(),
        Value::String(s) => Value::String(mask_credential(s)),
        Value::Array(items) => Value::Array(items.iter().map(mask_all_strings).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), mask_all_strings(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
#[path = "secrets_tests.rs"]
mod tests;
