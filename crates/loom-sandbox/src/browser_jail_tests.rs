use super::*;
use crate::kernel_abi;

/// Run `script` with bash under the browser's confinement (sandbox on) and return what it
/// printed and the confinement reported.
async fn jailed(script: &str, profile: &Path, proxy_port: u16) -> (String, Confinement) {
    let mut cmd = tokio::process::Command::new("bash");
    cmd.arg("-c").arg(script);
    // Set on the command before confining it: it must not reach the browser.
    cmd.env("LOOM_TEST_API_KEY", "sk-not-for-the-browser");
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let confinement = install(&mut cmd, profile, proxy_port, true).unwrap();
    let out = cmd.output().await.unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        confinement,
    )
}

fn pid_namespace() -> String {
    std::fs::read_link("/proc/self/ns/pid")
        .map(|p| p.display().to_string())
        .unwrap_or_default()
}

/// The browser's confinement, on a real process: it writes its profile and nothing else
/// (not the workspace, not the temp dir), connects only to the proxy's port, opens no UDP
/// socket, lives in its own PID namespace, sees none of Loom's environment, and has the
/// profile as `HOME` and `TMPDIR`.
#[tokio::test]
async fn the_browser_writes_only_its_profile_and_connects_only_to_the_proxy() {
    if kernel_abi() < 4 || !crate::protection_available() {
        eprintln!("skipped: this kernel lacks Landlock network rules or namespaces");
        return;
    }
    let profile = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let proxy = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let other = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let script = format!(
        r#"
try() {{ if ( eval "$2" ) 2>/dev/null; then echo "$1 yes"; else echo "$1 no"; fi; }}
try profile 'echo x > "{profile}/f"'
try elsewhere 'echo x > "{elsewhere}/f"'
try proxy 'exec 3<>/dev/tcp/127.0.0.1/{proxy}'
try other 'exec 3<>/dev/tcp/127.0.0.1/{other}'
try udp 'exec 3<>/dev/udp/127.0.0.1/{other}'
try mptcp 'python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262).connect((\"127.0.0.1\", {other}))"'
echo "key ${{LOOM_TEST_API_KEY:-none}}"
echo "home $HOME"
echo "tmp $TMPDIR"
echo "pid $$"
echo "ns $(readlink /proc/self/ns/pid)"
echo "userns $(readlink /proc/self/ns/user)"
"#,
        profile = profile.path().display(),
        elsewhere = elsewhere.path().display(),
        proxy = proxy.local_addr().unwrap().port(),
        other = other.local_addr().unwrap().port(),
    );
    let (out, confinement) =
        jailed(&script, profile.path(), proxy.local_addr().unwrap().port()).await;
    assert_eq!(
        confinement,
        Confinement {
            namespaces: true,
            files: true,
            network: true,
            no_udp: crate::no_udp::available(),
        }
    );
    let line = |key: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{key} ")))
            .unwrap_or_else(|| panic!("no {key} in {out}"))
            .to_string()
    };
    assert_eq!(line("profile"), "yes", "{out}");
    assert_eq!(line("elsewhere"), "no", "{out}");
    assert_eq!(line("proxy"), "yes", "{out}");
    assert_eq!(line("other"), "no", "{out}");
    if crate::no_udp::available() {
        assert_eq!(line("udp"), "no", "no UDP socket: {out}");
        // Regression (second review): an MPTCP stream socket connected past Landlock's TCP
        // rules (plain TCP to the same port was refused).
        assert_eq!(line("mptcp"), "no", "no MPTCP socket: {out}");
    }
    assert_eq!(line("key"), "none", "Loom's environment stays out: {out}");
    assert_eq!(line("home"), profile.path().display().to_string());
    assert_eq!(line("tmp"), profile.path().display().to_string());
    assert_eq!(line("pid"), "1", "PID 1 of its own namespace: {out}");
    assert_ne!(line("ns"), pid_namespace(), "{out}");
    let own_userns = std::fs::read_link("/proc/self/ns/user")
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    if crate::mount_namespaces_allowed(false, |p| std::fs::read_to_string(p).ok()) {
        assert_ne!(
            line("userns"),
            own_userns,
            "a user namespace of its own, root included (its capabilities stay inside): {out}"
        );
    }
    assert!(!elsewhere.path().join("f").exists());
}

#[test]
fn the_description_says_what_holds_and_what_is_missing() {
    let all = Confinement {
        namespaces: true,
        files: true,
        network: true,
        no_udp: true,
    };
    assert_eq!(
        all.describe(),
        "The browser runs with its own PID and mount namespaces, writes only in its \
         temporary profile, TCP only to Loom's proxy, no UDP."
    );
    let none = Confinement {
        namespaces: false,
        files: false,
        network: false,
        no_udp: false,
    };
    let text = none.describe();
    assert!(
        text.starts_with("The browser runs unconfined; no namespaces"),
        "{text}"
    );
    assert!(text.contains("still go through Loom's proxy"), "{text}");
}
