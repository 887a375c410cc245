//! "Safe by proof": the command lines issue 9 reproduced against the built binary, grouped
//! by what made them dangerous, each with the least (or most) level it must get; and the
//! property that no read-only verdict survives an unknown option.

use std::path::PathBuf;

use proptest::prelude::*;

use super::*;
use loom_base::paths::ForbiddenRule;

fn ctx() -> CommandContext {
    let home = PathBuf::from("/home/dev");
    CommandContext {
        workspace: PathBuf::from("/work/project"),
        cwd: PathBuf::from("/work/project"),
        protected: ForbiddenRule::defaults(Some(&home)),
        home: Some(home),
    }
}

/// How a command's level is checked.
#[derive(Debug, Clone, Copy)]
enum Want {
    /// Exactly this level.
    Is(Risk),
    /// At least this level.
    Min(Risk),
    /// At most this level.
    Max(Risk),
}

use Risk::{Forbidden as F, High as H, Low as L, Medium as M, ReadOnly as R};
use Want::{Is, Max, Min};

/// Programs that write files or run code, once rated read-only or low: each must ask.
const WRITES_OR_RUNS: &[(&str, Want)] = &[
    ("env -S 'touch x'", Min(M)),
    ("env -S'touch x'", Min(M)),
    ("env --split-string='touch x'", Min(M)),
    ("env -S 'rm -rf /'", Is(F)),
    ("env -S 'ls -la'", Is(R)),
    ("python3 -c'import os; os.remove(\"x\")'", Min(M)),
    ("python3 -c 'print(1)'", Min(M)),
    ("python3 -mhttp.server", Min(M)),
    ("python3 -m http.server 8000", Min(M)),
    ("node -e'require(\"fs\").rmSync(\"x\")'", Min(M)),
    ("node --eval='1'", Min(M)),
    ("node -p 'process.env'", Min(M)),
    ("ruby -e 'File.delete(\"x\")'", Min(M)),
    ("perl -e 'unlink \"x\"'", Min(M)),
    ("perl -pi -e 's/a/b/' f", Min(M)),
    ("git -ccore.fsmonitor='touch x' status", Min(H)),
    ("git -c core.fsmonitor='touch x' status", Min(H)),
    ("git -c core.pager=sh log", Min(H)),
    ("git -c alias.st='!touch x' st", Min(H)),
    ("git --config-env=core.pager=EDITOR log", Min(H)),
    ("git --config-env core.pager=EDITOR log", Min(H)),
    ("git -c color.ui=always log", Is(R)),
    ("rg --pre ./x TODO", Min(M)),
    ("rg --pre=./x TODO", Min(M)),
    ("rg --hostname-bin ./x TODO", Min(M)),
    ("rg --pre-glob '*.pdf' --pre ./x TODO", Min(M)),
    ("git --config-env=x=y status", Min(H)),
    ("git grep -Ovim foo", Min(M)),
    ("git grep -O vim foo", Min(M)),
    ("git grep --open-files-in-pager=vim foo", Min(M)),
    ("git log --output=log.txt", Min(M)),
    ("git diff --output=/tmp/x", Min(M)),
    ("git diff --ext-diff", Min(M)),
    ("git log -p --textconv", Min(M)),
    ("sort -o out.txt in.txt", Min(M)),
    ("sort -oout.txt in.txt", Min(M)),
    ("sort --output=out.txt in.txt", Min(M)),
    ("sort --output /etc/passwd in.txt", Min(H)),
    ("sort --compress-program=./x big.txt", Min(M)),
    ("sort -T /tmp --compress-program ./x f", Min(M)),
    ("uniq in.txt out.txt", Min(M)),
    ("uniq -c in.txt /etc/out", Min(H)),
    ("tree -o out.txt", Min(M)),
    ("tree -R -H . -o x.html", Min(M)),
    ("xxd -r dump.hex bin", Min(M)),
    ("xxd in.bin out.hex", Min(M)),
    ("shuf -o out.txt in.txt", Min(M)),
    ("file -C -m magic", Min(M)),
    ("date -s '2020-01-01'", Min(M)),
    ("date 010100002020", Min(M)),
    ("hostname evil", Min(M)),
    ("awk '{print > \"f\"}' in.txt", Min(M)),
    ("awk '{print $1 >> \"log\"}' in.txt", Min(M)),
    ("awk '{printf \"x\" > \"f\"}' in.txt", Min(M)),
    ("awk 'BEGIN { \"id\" | getline x; print x }'", Min(M)),
    ("awk 'BEGIN { system(\"id\") }'", Min(M)),
    ("awk '{ print | \"sh\" }' cmds.txt", Min(M)),
    (
        "awk 'BEGIN { while ((getline l < \"/etc/shadow\") > 0) print l }'",
        Min(M),
    ),
    ("awk -f prog.awk data", Min(M)),
    ("gawk -l ext 'BEGIN{}'", Min(M)),
    ("gawk '@load \"x\"; BEGIN{}'", Min(M)),
    ("sed 'w out.txt' in.txt", Min(M)),
    ("sed -n '/x/w out.txt' in.txt", Min(M)),
    ("sed 's/a/b/w out.txt' in.txt", Min(M)),
    ("sed '1e touch x' f", Min(M)),
    ("sed 's/.*/id/e' f", Min(H)),
    ("sed -e 'p' -e 'W out' f", Min(M)),
    ("sed -f script.sed f", Min(M)),
    ("sed '1r /home/dev/.ssh/id_rsa' f", Min(H)),
    ("sed --sandbox 'w out' f", Max(L)),
    (
        "tar --checkpoint=1 --checkpoint-action=exec='touch x' -cf a.tar f",
        Min(M),
    ),
    ("tar -cf a.tar --to-command=sh f", Min(M)),
    ("tar -I ./x -cf a.tar f", Min(M)),
    ("tar -tf a.tar --use-compress-program=./x", Min(M)),
    ("trap 'touch x' EXIT", Min(M)),
    ("trap 'rm -rf /' EXIT", Is(F)),
    ("trap \"$CMD\" EXIT", Min(H)),
    ("trap - EXIT", Is(R)),
    ("alias ls='touch x'", Min(M)),
    ("alias ls='rm -rf ~'", Is(F)),
    ("alias", Is(R)),
    ("cat <<EOF\n$(touch x)\nEOF", Min(M)),
    ("cat <<EOF\n${x:=$(touch y)}\nEOF", Min(M)),
    ("cat <<EOF\n$(rm -rf /)\nEOF", Is(F)),
    ("cat <<'EOF'\n$(touch x)\nEOF", Is(R)),
    ("cat <<\"EOF\"\n$(rm -rf /)\nEOF", Is(R)),
    ("echo ${x:=$(touch x)}", Min(M)),
    ("echo ${x:-`touch x`}", Min(M)),
    ("GIT_EXTERNAL_DIFF=./x git diff", Min(H)),
    ("GIT_SSH_COMMAND='touch x' git fetch", Min(H)),
    ("PAGER=./x git log", Min(H)),
    ("GIT_PAGER='sh -c x' git log", Min(H)),
    ("MANPAGER=./x man ls", Min(H)),
    ("LD_PRELOAD=./x.so ls", Min(H)),
    ("LD_LIBRARY_PATH=. ls", Min(H)),
    ("BASH_ENV=./x bash -c ls", Min(H)),
    ("ENV=./x sh -c ls", Min(H)),
    ("PYTHONSTARTUP=./x python3", Min(H)),
    ("PYTHONPATH=. python3 -m pytest", Min(H)),
    ("NODE_OPTIONS='--require ./x' npm test", Min(H)),
    ("PATH=.:$PATH ls", Min(H)),
    ("export LD_PRELOAD=./x.so; ls", Min(H)),
    ("export PAGER=./x && git log", Min(H)),
    ("declare -x GIT_EXTERNAL_DIFF=./x", Min(H)),
    ("env LD_PRELOAD=./x.so ls", Min(H)),
    ("env GIT_PAGER=./x git log", Min(H)),
    ("RUST_BACKTRACE=1 cargo test", Is(L)),
    ("xargs sh -c 'touch x'", Min(M)),
    ("echo a | xargs sh -c 'touch \"$1\"' _", Min(M)),
    ("find . -name '*.sh' | xargs -I{} sh -c '{}'", Min(H)),
    ("xargs -i sh -c '{}' < cmds.txt", Min(H)),
    ("ls | xargs -n1 bash", Min(M)),
    ("make -f - all", Min(M)),
    ("make --eval='all: ; touch x'", Min(M)),
    ("make -f /tmp/Makefile", Min(M)),
    ("make SHELL=./x", Min(H)),
    ("make CC='rm -rf ~'", Min(H)),
    ("make -t", Min(M)),
    ("ldd ./a.out", Min(M)),
    ("sqlite3 db '.shell touch x'", Min(M)),
    ("less -o log.txt f", Min(M)),
    ("man -P 'sh -c x' ls", Min(M)),
    ("find . -fprint out.txt", Min(M)),
    ("find . -name x -fprintf /etc/x '%p'", Min(H)),
    ("find . -newer x -zzz", Min(M)),
    ("fd -x rm {} .", Min(M)),
    ("fd --exec-batch rm", Min(M)),
    ("bat --pager='sh -c x' f", Min(M)),
    ("printf -v PATH '%s' /tmp", Min(H)),
    ("read PATH < x", Min(H)),
    ("shopt -s expand_aliases", Min(M)),
    ("hash -p ./x ls", Min(H)),
    ("enable -f ./x.so x", Min(H)),
    (
        "cargo --config 'target.x86_64-unknown-linux-gnu.runner=\"sh\"' run",
        Min(H),
    ),
    ("cargo --config build.rustc-wrapper=./x build", Min(H)),
    ("cargo build --target-dir /tmp/t", Min(H)),
    ("cargo test --zzz", Min(M)),
    ("cargo test -- --logfile /tmp/x", Min(M)),
    ("go build -toolexec ./x .", Min(M)),
    ("go test -exec ./x ./...", Min(M)),
    ("go build -o /usr/local/bin/x .", Min(H)),
    ("uv run rm -rf /", Is(F)),
    ("poetry run touch x", Min(M)),
    ("npm exec -- rm -rf ~", Is(F)),
    ("npm config set script-shell ./x", Min(H)),
    ("gcc -fplugin=./x.so a.c", Min(M)),
    ("gcc -wrapper ./x a.c", Min(M)),
    ("gcc -o /etc/x a.c", Min(H)),
    ("pytest -p evil_plugin", Min(M)),
];

/// Reads of credentials, other processes' environment and memory: high, naming the path.
const SECRETS: &[(&str, Want)] = &[
    ("cat ~/.ssh/id_rsa", Min(H)),
    ("cat ~/.aws/credentials", Min(H)),
    ("cat $HOME/.ssh/id_rsa", Min(H)),
    ("cat \"$HOME/.ssh/id_rsa\"", Min(H)),
    ("cat ${HOME}/.gnupg/secring.gpg", Min(H)),
    ("cat /home/dev/.ssh/id_ed25519", Min(H)),
    ("cat ../../../home/dev/.ssh/id_rsa", Min(H)),
    ("cd ~ && cat .ssh/id_rsa", Min(H)),
    ("cat /home/*/.ssh/id_rsa", Min(H)),
    ("head -c 100 ~/.aws/config", Min(H)),
    ("grep -r key ~/.gnupg", Min(H)),
    ("rg password ~/.aws", Min(H)),
    ("less ~/.ssh/id_rsa", Min(H)),
    ("base64 ~/.ssh/id_rsa", Min(H)),
    ("cp ~/.ssh/id_rsa key.txt", Min(H)),
    ("tar czf keys.tgz ~/.ssh", Min(H)),
    ("ln -s ~/.ssh keys", Min(H)),
    ("tr '\\0' '\\n' < /proc/$PPID/environ", Min(H)),
    ("cat /proc/self/environ", Min(H)),
    ("cat /proc/1/environ", Min(H)),
    ("strings /proc/$PPID/environ", Min(H)),
    ("head -c 100 /proc/1/mem", Min(H)),
    ("cat < ~/.ssh/id_rsa", Min(H)),
    ("wc -c < /proc/self/environ", Min(H)),
    ("xxd /proc/1/environ", Min(H)),
    ("sort ~/.ssh/known_hosts", Min(H)),
    ("diff ~/.ssh/id_rsa /dev/null", Min(H)),
    ("git diff --no-index ~/.ssh/id_rsa /dev/null", Min(H)),
    ("jq . ~/.aws/credentials", Min(H)),
    ("find ~/.ssh -type f", Min(H)),
    ("dd if=/home/dev/.ssh/id_rsa", Min(H)),
    ("cat /dev/sda", Min(H)),
    ("cat $SECRET_FILE", Min(M)),
    ("cat /proc/cpuinfo", Is(R)),
    ("cat /etc/hosts", Is(R)),
    ("cat .git/config", Is(R)),
    ("cat ~/.bashrc", Is(R)),
];

/// Disguises of `rm -rf` and friends that ran in full-auto: forbidden in every spelling.
const DISGUISES: &[(&str, Want)] = &[
    ("r\\\nm -rf *", Is(F)),
    ("r\\\nm -rf /", Is(F)),
    ("/bin/r? -rf *", Is(F)),
    ("/bin/r[m] -rf /", Is(F)),
    ("$'\\162m' -rf *", Is(F)),
    ("$'\\x72\\x6d' -rf /", Is(F)),
    ("$'\\u0072m' -rf ~", Is(F)),
    ("{rm,-rf,*}", Is(F)),
    ("{rm,-rf,/}", Is(F)),
    ("{r,}m -rf ~", Is(F)),
    ("taskset -c 0 rm -rf *", Is(F)),
    ("taskset 0x1 rm -rf /", Is(F)),
    ("time -p rm -rf *", Is(F)),
    ("time rm -rf ~", Is(F)),
    ("strace rm -rf *", Is(F)),
    ("strace -f -o /dev/null rm -rf /", Is(F)),
    ("ltrace rm -rf ~", Is(F)),
    ("script -qc 'rm -rf *'", Is(F)),
    ("script -q -c 'rm -rf /' /dev/null", Is(F)),
    ("fakeroot rm -rf *", Is(F)),
    ("fakeroot -- rm -rf /", Is(F)),
    ("eatmydata rm -rf ~", Is(F)),
    ("nice -n 5 ionice -c3 rm -rf /", Is(F)),
    ("stdbuf -o0 rm -rf ~", Is(F)),
    ("chrt -r 1 rm -rf /", Is(F)),
    ("watch 'rm -rf /'", Is(F)),
    ("flock /tmp/l rm -rf ~", Is(F)),
    ("flock -c 'rm -rf /' /tmp/l", Is(F)),
    ("busybox rm -rf /", Is(F)),
    ("mywrapper --quiet rm -rf /", Is(F)),
    ("./runner.sh 'rm -rf ~'", Is(F)),
    ("awk 'BEGIN{system(\"rm -rf /\")}'", Is(F)),
    ("python3 -c \"import os; os.system('rm -rf /')\"", Is(F)),
    (
        "node -e \"require('child_process').execSync('rm -rf ~')\"",
        Is(F),
    ),
    ("perl -e 'system(\"rm\", \"-rf\", \"/\")'", Is(F)),
    ("sed '1e rm -rf /' f", Is(F)),
    ("echo 'rm -rf /' | sh", Is(F)),
    ("printf 'rm -rf ~' | bash", Is(F)),
    ("find . -exec rm -rf / \\;", Is(F)),
    ("xargs -a list rm -rf /", Is(F)),
    ("eval 'rm -rf /'", Is(F)),
    ("eval eval 'rm -rf /'", Is(F)),
    ("sh -c 'eval \"rm -rf /\"'", Is(F)),
    (
        "sh -c \"sh -c 'sh -c \\\"sh -c \\\\\\\"sh -c ls\\\\\\\"\\\"'\"",
        Is(F),
    ),
    ("eval eval eval eval eval eval ls", Is(F)),
    ("eval eval eval ls", Is(R)),
    ("sudo -u root rm -rf /", Is(F)),
    ("env -i rm -rf /", Is(F)),
    ("command -p rm -rf /", Is(F)),
    ("exec rm -rf /", Is(F)),
    ("timeout -s KILL 5 rm -rf /", Is(F)),
];

/// Git commands that lose work or plant code: high.
const GIT_LOSES_WORK: &[(&str, Want)] = &[
    ("git branch -D feature", Is(H)),
    ("git branch -d -f feature", Is(H)),
    ("git branch --delete --force feature", Is(H)),
    ("git branch -d feature", Is(M)),
    ("git reset --hard", Is(H)),
    ("git reset --hard origin/main", Is(H)),
    ("git clean -f", Is(H)),
    ("git clean -fdx", Is(H)),
    ("git clean -n", Is(M)),
    ("git checkout -- .", Is(H)),
    ("git checkout -- src/main.rs", Is(H)),
    ("git checkout -f main", Is(H)),
    ("git restore .", Is(H)),
    ("git stash drop", Is(H)),
    ("git stash clear", Is(H)),
    ("git stash list", Is(R)),
    ("git config core.hooksPath .githooks", Is(H)),
    ("git config core.fsmonitor ./x", Is(H)),
    ("git config core.pager less", Is(H)),
    ("git config core.editor vim", Is(H)),
    ("git config alias.x '!sh'", Is(H)),
    ("git config diff.external ./x", Is(H)),
    ("git config diff.pdf.textconv ./x", Is(H)),
    ("git config filter.x.clean ./x", Is(H)),
    ("git config credential.helper store", Is(H)),
    ("git config include.path ../x", Is(H)),
    ("git config --add core.sshCommand x", Is(H)),
    ("git config set core.pager x", Is(H)),
    ("git config user.name Dev", Is(M)),
    ("git config --global user.name Dev", Is(H)),
    ("git config --get core.pager", Is(R)),
    ("git config get core.pager", Is(R)),
    ("git config --list", Is(R)),
    ("git config -e", Is(H)),
    ("git rebase -x 'rm -rf /' main", Is(F)),
    ("git rebase --exec 'cargo test' main", Is(M)),
    ("git bisect run rm -rf ~", Is(F)),
    ("git submodule foreach 'rm -rf /'", Is(F)),
    ("git clone --upload-pack=./x repo", Is(H)),
    ("git clone --template=./t https://example.com/r.git", Is(H)),
    ("git fetch --upload-pack ./x", Is(H)),
    ("git co main", Is(M)),
];

/// Read-only by proof: every option recognised, nothing protected touched.
const PROVEN_READ_ONLY: &[(&str, Want)] = &[
    ("ls -lah --color=auto src", Is(R)),
    ("ls -1 --group-directories-first", Is(R)),
    ("cat -n src/main.rs", Is(R)),
    ("head -5 README.md", Is(R)),
    ("head -n5 README.md", Is(R)),
    ("tail -n +10 log.txt", Is(R)),
    ("wc -lw src/*.rs", Is(R)),
    ("grep -rnE 'fn (main|run)' --include='*.rs' src", Is(R)),
    ("grep -A3 -B2 TODO src/lib.rs", Is(R)),
    ("grep -C 2 -i todo -- src", Is(R)),
    ("rg -n --hidden -g '*.toml' version", Is(R)),
    ("rg -tpy 'import os' .", Is(R)),
    ("sort -u -k2,2 names.txt", Is(R)),
    ("sort -t, -k3n data.csv | head", Is(R)),
    ("uniq -c sorted.txt", Is(R)),
    ("cut -d' ' -f1,3 log", Is(R)),
    ("tr -d '\\r' < in.txt", Is(R)),
    ("diff -u a.txt b.txt", Is(R)),
    ("diff -ru old new", Is(R)),
    ("stat -c %s Cargo.toml", Is(R)),
    ("du -sh --max-depth=1 .", Is(R)),
    ("tree -L 2 -I target", Is(R)),
    ("jq -r '.dependencies | keys[]' package.json", Is(R)),
    ("sed -n '10,20p' src/lib.rs", Is(R)),
    ("sed -E 's/(a|b)+/x/g' file.txt", Is(R)),
    ("awk -F: '{print $1}' /etc/passwd", Is(R)),
    ("awk 'NR > 5 && $3 >= 10 { print $0 }' data", Is(R)),
    (
        "find src -name '*.rs' -not -path '*/target/*' -print",
        Is(R),
    ),
    ("find . -maxdepth 2 -type d -newer Cargo.toml", Is(R)),
    ("git status -sb", Is(R)),
    ("git status --porcelain=v1", Is(R)),
    ("git log --oneline --graph -n 20 --author=dev", Is(R)),
    ("git log -3 --stat -- src", Is(R)),
    ("git log -p -S needle", Is(R)),
    ("git diff --stat HEAD~3..HEAD", Is(R)),
    ("git diff --cached --name-only", Is(R)),
    ("git show --stat HEAD", Is(R)),
    ("git show HEAD:src/main.rs", Is(R)),
    ("git blame -L 10,20 src/lib.rs", Is(R)),
    ("git grep -n 'fn main'", Is(R)),
    ("git rev-parse --abbrev-ref HEAD", Is(R)),
    ("git rev-parse --show-toplevel", Is(R)),
    ("git ls-files --others --exclude-standard", Is(R)),
    ("git branch -a -v", Is(R)),
    ("git branch --show-current", Is(R)),
    ("git tag -l 'v*'", Is(R)),
    ("git remote -v", Is(R)),
    ("git describe --tags --always", Is(R)),
    ("git --no-pager log -1", Is(R)),
    ("git -C src status", Is(R)),
    ("echo done", Is(R)),
    ("printf '%s\\n' a b c", Is(R)),
    ("seq 1 10", Is(R)),
    ("date +%Y-%m-%d", Is(R)),
    ("uname -sr", Is(R)),
    ("sha256sum -c SHA256SUMS", Is(R)),
    ("xxd -l 64 bin.dat", Is(R)),
    ("od -An -tx1 -N16 f", Is(R)),
    ("basename -s .rs src/main.rs", Is(R)),
    ("realpath --relative-to=. src", Is(R)),
    ("test -f Cargo.toml && echo yes", Is(R)),
    ("[ -d src ] || echo missing", Is(R)),
    ("command -v rg", Is(R)),
    ("type -a cargo", Is(R)),
    ("tar -tzf release.tar.gz", Is(R)),
    ("tar tvf a.tar", Is(R)),
    ("gzip -cd log.gz | grep x", Is(R)),
    ("env", Is(R)),
    ("printenv HOME", Is(R)),
    ("export RUST_LOG=debug", Is(R)),
    ("for f in src/*.rs; do wc -l \"$f\"; done", Is(M)),
    ("diff <(sort a) <(sort b)", Is(R)),
    ("git status", Is(R)),
    ("x=$(git rev-parse HEAD); echo $x", Is(R)),
];

/// Options outside the tables: never read-only, and the option is named.
const UNRECOGNISED: &[(&str, Want)] = &[
    ("ls --frobnicate", Is(M)),
    ("cat -Z f", Is(M)),
    ("head --line=3 f", Is(M)),
    ("grep --devices=skip -Q x f", Is(M)),
    ("git log --zz", Is(M)),
    ("git status --frob", Is(M)),
    ("git --frob status", Is(M)),
    ("sort --out=x f", Is(M)),
    ("wc --zz f", Is(M)),
    ("echo --zz", Is(M)),
    ("jq --zz . f", Is(M)),
    ("find . --zz", Is(M)),
    ("cargo build --zz", Is(M)),
    ("make --zz", Is(M)),
    ("tar --zz -tf a.tar", Is(M)),
];

/// Every group above, with its name.
const GROUPS: &[(&str, &[(&str, Want)])] = &[
    ("writes or runs", WRITES_OR_RUNS),
    ("secrets", SECRETS),
    ("disguises", DISGUISES),
    ("git loses work", GIT_LOSES_WORK),
    ("proven read-only", PROVEN_READ_ONLY),
    ("unrecognised options", UNRECOGNISED),
];

#[test]
fn the_proof_table_has_every_category_and_three_hundred_commands() {
    let total: usize = GROUPS.iter().map(|(_, g)| g.len()).sum::<usize>() + super::table::LEN;
    assert!(total >= 300, "{total}");
}

#[test]
fn every_command_meets_its_bound() {
    let ctx = ctx();
    let mut wrong = Vec::new();
    for (group, table) in GROUPS {
        for (command, want) in *table {
            let got = classify(command, &ctx);
            let ok = match want {
                Is(r) => got.level == *r,
                Min(r) => got.level >= *r,
                Max(r) => got.level <= *r,
            };
            if !ok {
                wrong.push(format!(
                    "[{group}] {command:?}: want {want:?}, got {} ({})",
                    got.level, got.reason
                ));
            }
            assert!(!got.reason.is_empty(), "{command:?} has no reason");
        }
    }
    assert!(
        wrong.is_empty(),
        "{} misclassified:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn an_unrecognised_option_is_named_in_the_reason() {
    let c = classify("sort --compress-program=./x f", &ctx());
    assert!(c.reason.contains("--compress-program"), "{}", c.reason);
    let c = classify("cat ~/.ssh/id_rsa", &ctx());
    assert!(c.reason.contains(".ssh"), "{}", c.reason);
}

/// Read-only commands of many programs, for the property below.
const READ_ONLY_BASES: &[&str] = &[
    "ls -la src",
    "cat src/main.rs",
    "head -n 5 README.md",
    "tail -3 log.txt",
    "wc -l src/lib.rs",
    "grep -rn todo src",
    "rg -n todo src",
    "sort names.txt",
    "uniq sorted.txt",
    "cut -d: -f1 f",
    "diff a b",
    "stat Cargo.toml",
    "du -sh target",
    "tree -L 2",
    "jq .name package.json",
    "sed -n 1,5p f",
    "awk '{print $1}' f",
    "find src -name x",
    "git status",
    "git log --oneline",
    "git diff HEAD",
    "git show HEAD",
    "git branch -a",
    "git rev-parse HEAD",
    "echo hello",
    "printf x",
    "date",
    "uname -a",
    "xxd f",
    "od -c f",
    "sha256sum f",
    "basename a/b",
    "realpath src",
    "seq 3",
    "tar -tf a.tar",
    "file src/main.rs",
    "nl f",
    "tac f",
];

proptest! {
    /// Invariant (issue 9, rule 3): no read-only verdict survives inserting an option the
    /// program's table does not list, wherever options are read (right after the program
    /// name or at the end, where GNU programs still read options).
    #[test]
    fn read_only_never_survives_an_unknown_option(
        base in proptest::sample::select(READ_ONLY_BASES),
        name in "[a-z]{1,8}",
        at_end in any::<bool>(),
        short in any::<bool>(),
    ) {
        let ctx = ctx();
        prop_assume!(classify(base, &ctx).level == Risk::ReadOnly);
        let mut words: Vec<String> = base.split(' ').map(str::to_string).collect();
        let program = words[0].clone();
        let option = if short {
            let known = super::programs::known_short_options(&program, &words[1..]);
            let unknown: Vec<char> = ('A'..='Z').chain('a'..='z').filter(|c| !known.contains(*c)).collect();
            prop_assume!(!unknown.is_empty());
            format!("-{}", unknown[name.len() % unknown.len()])
        } else {
            format!("--zq{name}")
        };
        if at_end && !base.contains('\'') {
            words.push(option.clone());
        } else {
            let at = if program == "git" && words.len() > 1 && !words[1].starts_with('-') { 2 } else { 1 };
            words.insert(at, option.clone());
        }
        let command = words.join(" ");
        let got = classify(&command, &ctx);
        prop_assert!(got.level > Risk::ReadOnly, "{command:?} stayed read-only: {}", got.reason);
    }
}
