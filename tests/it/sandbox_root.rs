//! Root is not root (issue 23): a sandboxed command, run as root as CI runs it, holds no
//! capability, has its own hostname and, without network, its own network namespace, so
//! it cannot rename the machine, set its clock, reconfigure its network or open raw
//! sockets. Each check runs a real command through the `bash` tool and looks at the
//! machine from outside.
//!
//! Nothing here may harm the machine when it fails: the commands that would change it set
//! what is already there (the same hostname, the current time, `lo` up), so on code that
//! lets them through they succeed, and the test fails, without effect.

use std::path::Path;

use loom::tools::{ToolContext, ToolRegistry, ToolResult};
use loom_sandbox::{self as sandbox, Availability, SandboxSpec};
use serde_json::json;

fn confined() -> bool {
    match sandbox::availability() {
        Availability::Available { .. } if sandbox::protection_available() => true,
        other => {
            // CI runs as root on a kernel with both; there, a missing sandbox is the
            // failure these checks exist to catch, not a reason to skip them.
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run the root checks, but Landlock or namespaces are missing ({other:?})"
            );
            eprintln!("SKIPPED: needs Landlock and namespaces here ({other:?})");
            false
        }
    }
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

fn ctx(dir: &Path, network: bool, keep_capabilities: bool) -> ToolContext {
    let mut ctx = ToolContext::for_workspace(dir).unwrap();
    let root = ctx.workspace.as_ref().unwrap().root().to_path_buf();
    ctx.sandbox = SandboxSpec::workspace_write(&root, &[], network);
    ctx.sandbox.keep_capabilities = keep_capabilities;
    ctx
}

async fn bash(ctx: &ToolContext, command: &str) -> ToolResult {
    ToolRegistry::builtin()
        .execute_as_person("bash", json!({ "command": command }), ctx)
        .await
}

fn stdout(r: &ToolResult) -> String {
    r.data.as_ref().unwrap()["stdout"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The value after `key ` on the line that starts with it.
fn line(out: &str, key: &str) -> String {
    out.lines()
        .find_map(|l| l.strip_prefix(&format!("{key} ")))
        .unwrap_or_else(|| panic!("no {key} in {out}"))
        .to_string()
}

fn own_namespace(kind: &str) -> String {
    std::fs::read_link(format!("/proc/self/ns/{kind}"))
        .unwrap()
        .display()
        .to_string()
}

/// The machine's hostname (this test's UTS namespace is the machine's).
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string()
}

/// Tries what root could do to the machine, each by its system call (no tool that may be
/// missing), and prints `NAME yes`, `NAME denied` (EPERM or EACCES) or `NAME error ...`:
/// a refusal must be a refusal, not a missing program. What it changes it sets to what is
/// already there.
const PROBE: &str = r#"import fcntl, socket, struct, sys, time

def hostname():
    socket.sethostname(socket.gethostname())

def clock():
    time.clock_settime(time.CLOCK_REALTIME, time.clock_gettime(time.CLOCK_REALTIME))

def link():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    name, flags = struct.unpack("16sh22x", fcntl.ioctl(s, 0x8913, struct.pack("16sh22x", b"lo", 0)))
    fcntl.ioctl(s, 0x8914, struct.pack("16sh22x", b"lo", flags | 1))

def raw():
    socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)

def loopback():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.settimeout(5)
    s.sendto(b"hi", s.getsockname())
    assert s.recv(2) == b"hi"

def rename():
    socket.sethostname("loom-own-name")

for name in sys.argv[1:]:
    try:
        globals()[name]()
        print(name, "yes")
    except PermissionError:
        print(name, "denied")
    except Exception as e:
        print(name, "error", repr(e))
"#;

/// Write the probe into `ws`; the command `python3 probe.py NAMES...` runs it.
fn with_probe(ws: &Path) {
    std::fs::write(ws.join("probe.py"), PROBE).unwrap();
}

/// Regression (issue 23): run as root, a sandboxed command kept `CapEff 000001fffeffffff`
/// in the machine's UTS and network namespaces, so `hostname`, `ip link`, `date -s` and raw
/// sockets reached the real machine.
#[tokio::test]
async fn a_sandboxed_command_holds_no_capability_and_cannot_touch_the_machine() {
    if !confined() {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    with_probe(ws.path());
    let host_name = hostname();
    let script = "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status \
                  | tr -d ':' | tr '\\t' ' '\n\
                  echo \"uid $(id -u)\"\n\
                  python3 probe.py hostname clock link raw\n\
                  echo in > inside.txt && echo 'write yes'\n";
    let r = bash(&ctx(ws.path(), false, false), script).await;
    let out = stdout(&r);
    for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
        assert_eq!(
            line(&out, set).trim(),
            "0000000000000000",
            "{set} is empty: {out}"
        );
    }
    assert_eq!(line(&out, "NoNewPrivs").trim(), "1", "{out}");
    if is_root() {
        assert_eq!(line(&out, "uid"), "0", "root stays root by name: {out}");
    }
    assert_eq!(line(&out, "hostname"), "denied", "{out}");
    assert_eq!(line(&out, "clock"), "denied", "{out}");
    assert_eq!(line(&out, "link"), "denied", "{out}");
    assert_eq!(line(&out, "raw"), "denied", "no raw socket: {out}");
    assert_eq!(
        line(&out, "write"),
        "yes",
        "the workspace stays writable: {out}"
    );
    assert_eq!(hostname(), host_name);
}

/// Without network the command has a network namespace of its own, whose loopback works;
/// with network it shares the machine's, still without the power to change it.
#[tokio::test]
async fn without_network_the_command_has_its_own_network_with_a_working_loopback() {
    if !confined() {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    with_probe(ws.path());
    let script = "echo \"net $(readlink /proc/self/ns/net)\"\n\
                  echo \"uts $(readlink /proc/self/ns/uts)\"\n\
                  python3 probe.py loopback raw link\n";
    let off = stdout(&bash(&ctx(ws.path(), false, false), script).await);
    assert_ne!(line(&off, "net"), own_namespace("net"), "{off}");
    assert_ne!(line(&off, "uts"), own_namespace("uts"), "{off}");
    assert_eq!(line(&off, "loopback"), "yes", "loopback is up: {off}");
    assert_eq!(line(&off, "link"), "denied", "not even its own: {off}");

    let on = stdout(&bash(&ctx(ws.path(), true, false), script).await);
    assert_eq!(
        line(&on, "net"),
        own_namespace("net"),
        "network allowed: the machine's network: {on}"
    );
    assert_ne!(line(&on, "uts"), own_namespace("uts"), "{on}");
    assert_eq!(line(&on, "raw"), "denied", "still no raw socket: {on}");
    assert_eq!(line(&on, "link"), "denied", "{on}");
}

/// `sandbox_keep_capabilities = true` keeps root's capabilities, yet the hostname and
/// (without network) the network stay the command's own: renaming inside leaves the
/// machine's name alone.
#[tokio::test]
async fn keeping_capabilities_still_keeps_the_hostname_and_network_apart() {
    if !confined() || !is_root() {
        eprintln!("skipped: keeping capabilities matters only as root");
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    with_probe(ws.path());
    let host_name = hostname();
    let host_uts = own_namespace("uts");
    // Renames only where the UTS namespace is not the machine's, whatever the code does.
    let script = format!(
        "echo \"cap $(grep '^CapEff:' /proc/self/status | cut -f2)\"\n\
         echo \"net $(readlink /proc/self/ns/net)\"\n\
         [ \"$(readlink /proc/self/ns/uts)\" != '{host_uts}' ] && python3 probe.py rename\n\
         echo \"name $(cat /proc/sys/kernel/hostname)\"\n"
    );
    let out = stdout(&bash(&ctx(ws.path(), false, true), &script).await);
    assert_ne!(
        line(&out, "cap"),
        "0000000000000000",
        "capabilities kept: {out}"
    );
    assert_ne!(line(&out, "net"), own_namespace("net"), "{out}");
    assert_eq!(line(&out, "rename"), "yes", "{out}");
    assert_eq!(line(&out, "name"), "loom-own-name", "{out}");
    assert_eq!(hostname(), host_name, "the machine's name is untouched");
}
