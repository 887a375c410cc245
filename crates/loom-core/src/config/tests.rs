//! Tests of loading the layered configuration (moved out of config.rs unchanged).

use super::*;

fn no_env(_: &str) -> Option<String> {
    None
}

#[test]
fn layers_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("user.toml");
    std::fs::write(
        &user,
        "model = \"user-model\"\nbase_url = \"http://user\"\ntemperature = 0.5\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("ws/.loom")).unwrap();
    std::fs::write(
        dir.path().join("ws/.loom/config.toml"),
        "model = \"project-model\"\n",
    )
    .unwrap();
    let flags = FlagConfig {
        config_file: Some(user.clone()),
        ..FlagConfig::default()
    };
    let c = load(&dir.path().join("ws"), &flags, &no_env).unwrap();
    assert_eq!(c.provider.model.as_deref(), Some("project-model"));
    assert_eq!(c.provider.base_url.as_deref(), Some("http://user"));
    assert_eq!(c.provider.temperature, Some(0.5));
    assert_eq!(c.sources.len(), 2);

    let env = |k: &str| match k {
        "LOOM_MODEL" => Some("env-model".to_string()),
        "OPENAI_API_KEY" => Some("sk-env".to_string()),
        _ => None,
    };
    let c = load(&dir.path().join("ws"), &flags, &env).unwrap();
    assert_eq!(c.provider.model.as_deref(), Some("env-model"));
    assert_eq!(c.provider.api_key.as_deref(), Some("sk-env"));

    let flags = FlagConfig {
        model: Some("flag-model".into()),
        api_key_env: Some("OTHER_KEY".into()),
        ..flags
    };
    let c = load(&dir.path().join("ws"), &flags, &env).unwrap();
    assert_eq!(c.provider.model.as_deref(), Some("flag-model"));
    assert_eq!(
        c.provider.api_key, None,
        "the key is read from the named variable"
    );
    assert!(!c.tools.auto_commit, "auto-commit is off by default");

    let flags = FlagConfig {
        auto_commit: true,
        ..flags
    };
    assert!(
        load(&dir.path().join("ws"), &flags, &env)
            .unwrap()
            .tools
            .auto_commit
    );
}

#[test]
fn bad_files_name_path_line_and_expectation() {
    let path = Path::new("/x/config.toml");
    let err = FileConfig::parse("model = \"a\"\nmodle = \"b\"\n", path).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("/x/config.toml:2:1:"), "{msg}");
    assert!(msg.contains("unknown field `modle`"), "{msg}");
    assert!(msg.contains("expected one of"), "{msg}");
    let err = FileConfig::parse("temperature = \"hot\"\n", path).unwrap_err();
    assert!(err.to_string().contains(":1:15:"), "{err}");
    let err = FileConfig::parse("model = \n", path).unwrap_err();
    assert!(err.to_string().contains(":1:"), "{err}");
}

#[test]
fn approval_table_rules_and_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("user.toml");
    std::fs::write(
        &user,
        "sandbox = \"off\"\n[approval]\nmode = \"full-auto\"\nmax_actions_per_hour = 7\n\n[[approval.rules]]\naction = \"deny\"\ncommand = \"git push\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join(".loom")).unwrap();
    std::fs::write(
        dir.path().join(".loom/config.toml"),
        "[[approval.rules]]\naction = \"ask\"\npath = \"docs/**\"\n",
    )
    .unwrap();
    let flags = FlagConfig {
        config_file: Some(user),
        ..FlagConfig::default()
    };
    let c = load(dir.path(), &flags, &no_env).unwrap();
    assert_eq!(c.approval.autonomy, Autonomy::FullAuto);
    assert_eq!(c.approval.max_actions_per_hour, 7);
    assert_eq!(c.approval.rules.len(), 2, "rules from both files add up");
    assert_eq!(c.sandbox.mode, SandboxMode::Off);
    assert_eq!(c.project_trust, trust::ProjectTrust::NotNeeded);
    std::fs::write(
        dir.path().join(".loom/config.toml"),
        "[[approval.rules]]\naction = \"ask\"\n",
    )
    .unwrap();
    let err = load(dir.path(), &flags, &no_env).unwrap_err().to_string();
    assert!(err.contains("approval rule 2"), "{err}");
}

#[test]
fn bad_approval_value() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.toml"), "").unwrap();
    let flags = FlagConfig {
        approval: Some("yolo".into()),
        config_file: Some(dir.path().join("empty.toml")),
        ..FlagConfig::default()
    };
    assert!(load(dir.path(), &flags, &no_env).is_err());
}

#[test]
fn missing_explicit_config_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("c.toml"), "").unwrap();
    let ok = FlagConfig {
        config_file: Some(dir.path().join("c.toml")),
        ..FlagConfig::default()
    };
    let c = load(dir.path(), &ok, &no_env).unwrap();
    assert_eq!(c.approval.autonomy, Autonomy::Supervised);
    assert_eq!(c.limits.max_tool_rounds, 50);
    let missing = FlagConfig {
        config_file: Some(dir.path().join("nope.toml")),
        ..FlagConfig::default()
    };
    assert!(load(dir.path(), &missing, &no_env).is_err());
}
