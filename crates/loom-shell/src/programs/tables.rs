//! Names of programs by family, for the rule table.

#[rustfmt::skip]
pub(super) const NETWORK_CLIENTS: &[&str] = &[
    "curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet",
    "ftp", "tftp", "aria2c", "http", "https", "xh", "lynx", "w3m", "links", "mosh", "rclone", "gh",
    "glab", "aws", "gcloud", "az", "dig", "nslookup", "host", "whois", "tldr",
];
#[rustfmt::skip]
pub(super) const FORMATTERS_WRITING: &[&str] =
    &["rustfmt", "gofmt", "black", "isort", "autopep8", "yapf"];
#[rustfmt::skip]
pub(super) const BUILD_TEST: &[&str] = &[
    "cmake", "ninja", "meson", "bazel", "bazelisk", "mvn", "mvnw", "gradle", "gradlew", "ant",
    "dotnet", "swift", "zig", "ctest", "tox", "nox", "pytest", "py.test", "jest", "vitest",
    "mocha", "rspec", "phpunit", "tsc", "mypy", "pyright", "shellcheck", "hadolint", "gcc",
    "g++", "cc", "c++", "clang", "clang++", "rustc", "javac", "java", "kotlinc", "scalac", "ghc",
    "stack", "cabal", "mix", "elixir", "erlc", "luac", "nim", "crystal", "dune", "opam", "sbt",
    "lein", "clj", "flake8", "pylint", "golangci-lint", "staticcheck", "tflint", "cargo-nextest",
    "just", "task", "nextest", "ruff", "eslint", "prettier", "rubocop", "clang-format", "stylua",
    "biome",
];
#[rustfmt::skip]
pub(super) const DISK_DESTROYERS: &[&str] = &[
    "mkfs", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "sgdisk",
    "gdisk", "mkdosfs", "mkntfs", "blkdiscard",
];
#[rustfmt::skip]
pub(super) const POWER: &[&str] = &["shutdown", "reboot", "halt", "poweroff"];
#[rustfmt::skip]
pub(super) const INFRA: &[&str] = &[
    "docker", "podman", "kubectl", "helm", "terraform", "tofu", "ansible", "ansible-playbook",
    "vagrant", "nerdctl", "minikube", "kind",
];
#[rustfmt::skip]
pub(super) const SYSTEM_ADMIN: &[&str] = &[
    "useradd", "userdel", "usermod", "passwd", "chpasswd", "groupadd", "groupdel", "visudo",
    "iptables", "ip6tables", "nft", "ufw", "sysctl", "modprobe", "insmod", "rmmod", "swapon",
    "swapoff", "losetup", "chroot", "setcap", "chattr", "launchctl", "service",
];
#[rustfmt::skip]
pub(super) const PACKAGE_MANAGERS: &[&str] = &[
    "apt", "apt-get", "apt-cache", "dnf", "yum", "pacman", "apk", "brew", "snap", "flatpak",
    "zypper", "port", "emerge", "nix-env",
];
#[rustfmt::skip]
pub(super) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "ash", "busybox",
];
