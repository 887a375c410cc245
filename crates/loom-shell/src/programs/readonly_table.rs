//! The read-only programs Loom knows, each with the options it recognises, checked against
//! each program's manual (`--help` of GNU coreutils 9, util-linux 2.38, binutils 2.40,
//! procps-ng 4 and the others' documentation): a letter is listed as taking a value only
//! when the program reads the next word as its value (`strings -o` and `-d` are flags; `od
//! -w`, `hexdump -L`, `readelf -w` take a value only when it is glued, written `w?`), since
//! a flag listed as valued would swallow the file after it unchecked.

use super::readonly::Operands::{Paths, PatternThenPaths, Text};
use super::readonly::{ReadOnly, binutils, name_lists, not_inert, numeric, reads, ro};

const HV: &[&str] = &["help", "version"];

#[rustfmt::skip]
const LS_LONG: &[&str] = &[
    "all", "almost-all", "author", "escape", "block-size=", "ignore-backups", "color?",
    "colour?", "directory", "dired", "classify?", "file-type", "format=", "full-time",
    "group-directories-first", "no-group", "human-readable", "si", "dereference-command-line",
    "dereference-command-line-symlink-to-dir", "hide=", "hyperlink?", "indicator-style=",
    "inode", "ignore=", "kibibytes", "dereference", "numeric-uid-gid", "literal",
    "hide-control-chars", "show-control-chars", "quote-name", "quoting-style=", "reverse",
    "recursive", "size", "sort=", "time=", "time-style=", "tabsize=", "width=", "context",
    "zero", "help", "version",
];

#[rustfmt::skip]
const GREP_LONG: &[&str] = &[
    "extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "regexp=", "file=",
    "ignore-case", "no-ignore-case", "word-regexp", "line-regexp", "null-data", "no-messages",
    "invert-match", "version", "help", "max-count=", "byte-offset", "line-number",
    "no-line-number", "line-buffered", "with-filename", "no-filename", "label=", "only-matching",
    "quiet", "silent", "binary-files=", "text", "directories=", "devices=", "recursive",
    "dereference-recursive", "include=", "exclude=", "exclude-from=", "exclude-dir=",
    "files-without-match", "files-with-matches", "count", "initial-tab", "null",
    "before-context=", "after-context=", "context=", "color?", "colour?", "binary",
];

#[rustfmt::skip]
const RG_LONG: &[&str] = &[
    "after-context=", "before-context=", "context=", "binary", "no-binary", "block-buffered",
    "byte-offset", "case-sensitive", "color=", "colors=", "column", "no-column", "count",
    "count-matches", "crlf", "dfa-size-limit=", "encoding=", "engine=", "file=", "files",
    "files-with-matches", "files-without-match", "fixed-strings", "follow", "glob=",
    "glob-case-insensitive", "heading", "no-heading", "help", "hidden", "no-hidden", "iglob=",
    "ignore-case", "ignore-file=", "ignore-file-case-insensitive", "include-zero",
    "invert-match", "json", "line-buffered", "line-number", "no-line-number", "line-regexp",
    "max-columns=", "max-columns-preview", "max-count=", "max-depth=", "max-filesize=", "mmap",
    "no-mmap", "multiline", "multiline-dotall", "no-config", "no-filename", "no-ignore",
    "no-ignore-dot", "no-ignore-exclude", "no-ignore-files", "no-ignore-global",
    "no-ignore-messages", "no-ignore-parent", "no-ignore-vcs", "no-messages", "no-pcre2-unicode",
    "no-require-git", "no-unicode", "null", "null-data", "one-file-system", "only-matching",
    "passthru", "path-separator=", "pcre2", "pretty", "quiet", "regex-size-limit=", "regexp=",
    "replace=", "search-zip", "smart-case", "sort=", "sortr=", "stats", "text", "threads=",
    "trim", "type=", "type-add=", "type-clear=", "type-list", "type-not=", "unrestricted",
    "vimgrep", "with-filename", "word-regexp", "version",
];

#[rustfmt::skip]
const DIFF_LONG: &[&str] = &[
    "brief", "report-identical-files", "context?", "unified?", "ed", "normal", "rcs",
    "side-by-side", "width=", "left-column", "suppress-common-lines", "expand-tabs",
    "initial-tab", "tabsize=", "suppress-blank-empty", "label=", "show-c-function",
    "show-function-line=", "recursive", "no-dereference", "new-file", "unidirectional-new-file",
    "ignore-file-name-case", "no-ignore-file-name-case", "exclude=", "exclude-from=",
    "starting-file=", "from-file=", "to-file=", "ignore-case", "ignore-tab-expansion",
    "ignore-trailing-space", "ignore-space-change", "ignore-all-space", "ignore-blank-lines",
    "ignore-matching-lines=", "text", "strip-trailing-cr", "minimal", "horizon-lines=",
    "speed-large-files", "color?", "palette=", "line-format=", "old-line-format=",
    "new-line-format=", "unchanged-line-format=", "old-group-format=", "new-group-format=",
    "changed-group-format=", "unchanged-group-format=", "help", "version",
];

#[rustfmt::skip]
const SORT_LONG: &[&str] = &[
    "ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort",
    "ignore-nonprinting", "month-sort", "human-numeric-sort", "numeric-sort", "random-sort",
    "random-source=", "reverse", "sort=", "version-sort", "batch-size=", "check?", "debug",
    "files0-from=", "key=", "merge", "output=", "stable", "buffer-size=", "field-separator=",
    "temporary-directory=", "parallel=", "unique", "zero-terminated", "help", "version",
];

#[rustfmt::skip]
const SUMS: ReadOnly = ro(
    "bctwz",
    "",
    &[
        "binary", "check", "tag", "text", "zero", "ignore-missing", "quiet", "status", "strict",
        "warn", "help", "version",
    ],
    Paths,
);

/// The table: what Loom knows about each read-only program, or `None`.
#[rustfmt::skip]
pub(super) fn lookup(name: &str) -> Option<ReadOnly> {
    Some(match name {
        "ls" | "dir" | "vdir" => ro(
            "aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1",
            "ITw",
            LS_LONG,
            Paths,
        ),
        "cat" => ro(
            "AbeEnstTuv",
            "",
            &[
                "show-all", "number-nonblank", "show-ends", "number", "squeeze-blank",
                "show-tabs", "show-nonprinting", "help", "version",
            ],
            Paths,
        ),
        "head" => numeric(ro(
            "qvz",
            "cn",
            &[
                "bytes=", "lines=", "quiet", "silent", "verbose", "zero-terminated", "help",
                "version",
            ],
            Paths,
        )),
        "tail" => numeric(ro(
            "fFqvz",
            "cns",
            &[
                "bytes=", "lines=", "follow?", "retry", "pid=", "max-unchanged-stats=",
                "sleep-interval=", "quiet", "silent", "verbose", "zero-terminated", "help",
                "version",
            ],
            Paths,
        )),
        "wc" => name_lists(
            ro(
                "cmlLw",
                "",
                &[
                    "bytes", "chars", "lines", "max-line-length", "words", "files0-from=",
                    "total=", "help", "version",
                ],
                Paths,
            ),
            &["--files0-from"],
        ),
        "grep" | "egrep" | "fgrep" => reads(
            numeric(ro(
                "EFGPiyvwxczLlHhnbsqoTUZaIrR",
                "efmABCdD",
                GREP_LONG,
                PatternThenPaths,
            )),
            &["-f", "--file", "--exclude-from"],
        ),
        "rg" => reads(
            not_inert(ro(
                "abcFHhiIlLnNopPqSsuUvVwxz0.",
                "ABCEefgjMmrtTd",
                RG_LONG,
                PatternThenPaths,
            )),
            &["-f", "--file", "--ignore-file"],
        ),
        "pwd" => ro("LP", "", &["logical", "physical", "help", "version"], Text),
        "echo" => ro("neE", "", &["help", "version"], Text),
        "printf" => ro("", "v", HV, Text),
        "which" => ro("as", "", &["all"], Text),
        "whereis" => ro("bmsulfhV", "BMS", &[], Text),
        "type" => ro("afptP", "", &[], Text),
        "file" => name_lists(reads(
            not_inert(ro(
                "bcdEhiklLNnprsSvzZ0",
                "emfFP",
                &[
                    "brief", "mime", "mime-type", "mime-encoding", "keep-going",
                    "no-dereference", "dereference", "no-pad", "raw", "special-files",
                    "uncompress", "uncompress-noreport", "separator=", "files-from=", "exclude=",
                    "magic-file=",
                    "extension", "apple", "print0", "help", "version",
                ],
                Paths,
            )),
            &["-m", "--magic-file"],
        ), &["-f", "--files-from"]),
        "stat" => ro(
            "LfSt",
            "c",
            &[
                "dereference", "file-system", "format=", "printf=", "terse", "cached=", "help",
                "version",
            ],
            Paths,
        ),
        "du" => name_lists(reads(
            ro(
                "0abcDhHklLmPsSx",
                "BdtX",
                &[
                    "null", "all", "apparent-size", "block-size=", "bytes", "total",
                    "dereference-args", "human-readable", "inodes", "dereference", "count-links",
                    "max-depth=", "no-dereference", "separate-dirs", "si", "summarize",
                    "threshold=", "time?", "time-style=", "exclude-from=", "exclude=",
                    "one-file-system", "files0-from=", "help", "version",
                ],
                Paths,
            ),
            &["-X", "--exclude-from"],
        ), &["--files0-from"]),
        "df" => ro(
            "aHhiklPTv",
            "Btx",
            &[
                "all", "block-size=", "human-readable", "si", "inodes", "local", "no-sync",
                "output?", "portability", "print-type", "sync", "total", "type=",
                "exclude-type=", "help", "version",
            ],
            Paths,
        ),
        "tree" => not_inert(ro(
            "adlfxpsughDFqNQrtvUCASnJX",
            "LPI",
            &[
                "dirsfirst", "filelimit=", "noreport", "charset=", "gitignore", "du", "prune",
                "matchdirs", "ignore-case", "sort=", "timefmt=", "inodes", "device", "si",
                "info", "metafirst", "help", "version",
            ],
            Paths,
        )),
        "cut" => ro(
            "nsz",
            "bcdf",
            &[
                "bytes=", "characters=", "delimiter=", "fields=", "complement", "only-delimited",
                "output-delimiter=", "zero-terminated", "help", "version",
            ],
            Paths,
        ),
        "tr" => ro(
            "cCdst",
            "",
            &[
                "complement", "delete", "squeeze-repeats", "truncate-set1", "help", "version",
            ],
            Text,
        ),
        "diff" => reads(
            numeric(ro("qscuenyltTrNiEZbwBadpP", "CUWxXSIDFL", DIFF_LONG, Paths)),
            &["-X", "--exclude-from", "--from-file", "--to-file"],
        ),
        "cmp" => ro(
            "bls",
            "in",
            &[
                "print-bytes", "ignore-initial=", "verbose", "bytes=", "quiet", "silent", "help",
                "version",
            ],
            Paths,
        ),
        "comm" => ro(
            "123iz",
            "",
            &[
                "check-order", "nocheck-order", "output-delimiter=", "total", "zero-terminated",
                "help", "version",
            ],
            Paths,
        ),
        "basename" => ro(
            "az",
            "s",
            &["multiple", "suffix=", "zero", "help", "version"],
            Text,
        ),
        "dirname" => ro("z", "", &["zero", "help", "version"], Text),
        "realpath" => ro(
            "eEmLPqsz",
            "",
            &[
                "canonicalize-existing", "canonicalize-missing", "logical", "physical", "quiet",
                "relative-to=", "relative-base=", "strip", "no-symlinks", "zero", "help",
                "version",
            ],
            Text,
        ),
        "readlink" => ro(
            "efmnqsvz",
            "",
            &[
                "canonicalize", "canonicalize-existing", "canonicalize-missing", "no-newline",
                "quiet", "silent", "verbose", "zero", "help", "version",
            ],
            Text,
        ),
        "date" => reads(
            ro(
                "Ru",
                "dfrI?",
                &[
                    "date=", "file=", "iso-8601?", "rfc-email", "rfc-3339=", "reference=", "utc",
                    "universal", "debug", "help", "version",
                ],
                Text,
            ),
            &["-f", "--file", "-r", "--reference"],
        ),
        "printenv" => ro("0", "", &["null", "help", "version"], Text),
        "whoami" | "groups" | "tty" | "nproc" | "arch" | "logname" | "true" | "false" | "clear"
        | "getconf" | "tput" | "sleep" | "yes" | "cal" | "ncal" => {
            ro("", "", &["help", "version", "all"], Text)
        }
        "id" => ro(
            "agGnrzZu",
            "",
            &[
                "context", "group", "groups", "name", "real", "user", "zero", "help", "version",
            ],
            Text,
        ),
        "uname" => ro(
            "asnrvmpio",
            "",
            &[
                "all", "kernel-name", "nodename", "kernel-release", "kernel-version", "machine",
                "processor", "hardware-platform", "operating-system", "help", "version",
            ],
            Text,
        ),
        "seq" => numeric(ro(
            "w",
            "fs",
            &["format=", "separator=", "equal-width", "help", "version"],
            Text,
        )),
        "jq" => reads(
            ro(
                "nrjacsSCMehRV",
                "fL",
                &[
                    "null-input", "raw-input", "slurp", "compact-output", "raw-output",
                    "raw-output0", "join-output", "ascii-output", "sort-keys", "color-output",
                    "monochrome-output", "tab", "indent=", "unbuffered", "stream",
                    "stream-errors", "seq", "exit-status", "arg=", "argjson=", "slurpfile=",
                    "rawfile=", "args", "jsonargs", "from-file=", "help", "version",
                ],
                Paths,
            ),
            &["-f", "--from-file", "--slurpfile", "--rawfile", "-L"],
        ),
        "nl" => ro(
            "p",
            "bdfhilnsvw",
            &[
                "body-numbering=", "section-delimiter=", "footer-numbering=",
                "header-numbering=", "line-increment=", "join-blank-lines=", "number-format=",
                "no-renumber", "number-separator=", "starting-line-number=", "number-width=",
                "help", "version",
            ],
            Paths,
        ),
        "fold" => ro(
            "bs",
            "w",
            &["bytes", "spaces", "width=", "help", "version"],
            Paths,
        ),
        "fmt" => numeric(ro(
            "cstu",
            "pgw",
            &[
                "crown-margin", "prefix=", "split-only", "tagged-paragraph", "uniform-spacing",
                "width=", "goal=", "help", "version",
            ],
            Paths,
        )),
        "column" => ro(
            "tdexJLhV",
            "socNRHOETWlrnip",
            &[
                "table", "separator=", "output-separator=", "columns=", "fillrows", "json",
                "table-columns=", "table-right=", "help", "version",
            ],
            Paths,
        ),
        "paste" => ro(
            "sz",
            "d",
            &[
                "serial", "delimiters=", "zero-terminated", "help", "version",
            ],
            Paths,
        ),
        "join" => ro(
            "iz",
            "aejotv12",
            &[
                "ignore-case", "check-order", "nocheck-order", "header", "zero-terminated",
                "help", "version",
            ],
            Paths,
        ),
        "expand" | "unexpand" => numeric(ro(
            "ia",
            "t",
            &["initial", "all", "first-only", "tabs=", "help", "version"],
            Paths,
        )),
        "rev" => ro("0", "", &["zero", "help", "version"], Paths),
        "tac" => ro(
            "br",
            "s",
            &["before", "regex", "separator=", "help", "version"],
            Paths,
        ),
        "od" => ro(
            "abcdfiloxsv",
            "AjNtw?S",
            &[
                "address-radix=", "endian=", "skip-bytes=", "read-bytes=", "format=",
                "output-duplicates", "width?", "strings?", "traditional", "help", "version",
            ],
            Paths,
        ),
        "hexdump" | "hd" => reads(
            ro(
                "bcCdovxhV",
                "enfsL?",
                &[
                    "one-byte-octal", "one-byte-char", "canonical", "two-bytes-decimal",
                    "two-bytes-octal", "two-bytes-hex", "color?", "format=", "format-file=",
                    "length=", "skip=", "no-squeezing", "help", "version",
                ],
                Paths,
            ),
            &["-f", "--format-file"],
        ),
        "xxd" => not_inert(ro(
            "aEipuCdh",
            "cglosn",
            &["autoskip", "help", "version"],
            Paths,
        )),
        "md5sum" | "sha1sum" | "sha224sum" | "sha256sum" | "sha384sum" | "sha512sum" | "b2sum"
        | "shasum" => SUMS,
        "cksum" | "sum" => ro(
            "rs",
            "a",
            &["algorithm=", "untagged", "base64", "raw", "help", "version"],
            Paths,
        ),
        "base64" | "base32" | "basenc" => ro(
            "di",
            "w",
            &[
                "decode", "ignore-garbage", "wrap=", "base64", "base64url", "base32",
                "base32hex", "base16", "help", "version",
            ],
            Paths,
        ),
        "sort" => name_lists(
            reads(
                not_inert(ro("bdfgiMhnRrVcCmsuz", "kotTS", SORT_LONG, Paths)),
                &["--random-source"],
            ),
            &["--files0-from"],
        ),
        "uniq" => not_inert(numeric(ro(
            "cdDiuz",
            "fsw",
            &[
                "count", "repeated", "all-repeated?", "skip-fields=", "group?", "ignore-case",
                "skip-chars=", "unique", "zero-terminated", "check-chars=", "help", "version",
            ],
            Paths,
        ))),
        "shuf" => reads(
            not_inert(ro(
                "erz",
                "inoN",
                &[
                    "echo", "input-range=", "head-count=", "output=", "random-source=", "repeat",
                    "zero-terminated", "help", "version",
                ],
                Paths,
            )),
            &["--random-source"],
        ),
        "strings" => binutils(ro(
            "adfwohvV",
            "ntTeUs",
            &[
                "all", "data", "bytes=", "radix=", "encoding=", "print-file-name",
                "include-all-whitespace", "output-separator=", "target=", "unicode=", "help",
                "version",
            ],
            Paths,
        )),
        "zcat" | "bzcat" | "xzcat" | "zstdcat" | "lz4cat" => ro(
            "fqvtlc",
            "",
            &["force", "quiet", "verbose", "help", "version"],
            Paths,
        ),
        "ps" => ro(
            "AaedfFHjlLMNrTvwxXyZcm",
            "opsuUgGCtkO",
            &[
                "forest", "headers", "no-headers", "sort=", "format=", "pid=", "ppid=", "user=",
                "cols=", "columns=", "width=", "help", "version",
            ],
            Text,
        ),
        "free" => ro(
            "bkmghltwv",
            "sc",
            &[
                "bytes", "kilo", "mega", "giga", "tera", "kibi", "mebi", "gibi", "tebi", "human",
                "si", "lohi", "total", "wide", "seconds=", "count=", "help", "version",
            ],
            Text,
        ),
        "uptime" => ro("psh", "", &["pretty", "since", "help", "version"], Text),
        "w" => ro("hiosfu", "", &["help", "version"], Text),
        // `who FILE` reads FILE as a login record file.
        "who" => ro("abdHlmpqrsTtuw", "", &["all", "help", "version"], Paths),
        "lscpu" => ro("abcJxyBhV", "C?e?p?s", &["help", "version", "json"], Text),
        "lsblk" => ro("abdDfJlmnprstSOAMPyzihV", "oxeEIwT?", &["help", "version", "json"], Text),
        "pgrep" => reads(ro(
            "lacfinovwxA",
            "gGPstuUFdr",
            &[
                "list-name", "list-full", "count", "full", "newest", "oldest", "exact", "help",
                "pidfile=",
            ],
            Text,
        ), &["-F", "--pidfile"]),
        "pstree" => ro("aAcgGhlpsSntuUZTV", "CHN", &["help", "version"], Text),
        "top" => ro("bcHiSsO1", "dnpuUoEew?", &["help", "version"], Text),
        "vmstat" | "iostat" => numeric(ro("adfmnsDtwxyzhkNV", "pS", &["help", "version"], Text)),
        "lsof" => ro("nPlitVbhRw", "pucgadsFKE", &["help"], Text),
        "hostname" => ro("adfiIsAy", "", &["help", "version"], Text),
        "locale" => ro("akcmv", "", &["help", "version"], Text),
        "expr" => ro("", "", &["help", "version"], Text),
        "bc" => ro(
            "hilqsvw",
            "",
            &["help", "version", "mathlib", "quiet"],
            Paths,
        ),
        "numfmt" => ro(
            "z",
            "d",
            &[
                "from=", "to=", "padding=", "format=", "suffix=", "field=", "header?", "grouping",
                "invalid=", "round=", "help", "version",
            ],
            Text,
        ),
        "nm" => binutils(ro(
            "aABCDgPpsuvrVSlnoejUWh",
            "ftX",
            &["help", "version", "demangle"],
            Paths,
        )),
        "readelf" => binutils(ro(
            "ahlSgtesnrudVADIWHLTczP",
            "xpRw?U?",
            &[
                "all", "file-header", "sections", "symbols", "dynamic", "help", "version",
            ],
            Paths,
        )),
        // No -S/--source: it prints the source files the object's debug information names,
        // which can be any file.
        "objdump" => binutils(ro(
            "adDfhpstrRxgeGlwzCFLiTVH",
            "jbmMEW?U?",
            &[
                "help", "version", "disassemble", "demangle", "syms", "section-headers",
            ],
            Paths,
        )),
        "size" => binutils(ro(
            "ABGodxtfhHvV",
            "",
            &["format=", "radix=", "totals", "common", "target=", "help", "version"],
            Paths,
        )),
        "eza" | "exa" => ro(
            "1lGxRTFahdDfrSuUmHignXZ@Bb",
            "LIst",
            &[
                "long", "oneline", "grid", "across", "recurse", "tree", "classify", "all",
                "level=", "sort=", "reverse", "header", "git", "icons", "no-icons",
                "group-directories-first", "only-dirs", "only-files", "ignore-glob=",
                "git-ignore", "color?", "colour?", "help", "version",
            ],
            Paths,
        ),
        "fd" | "fdfind" => not_inert(ro(
            "HIsiFgapLlRuq0",
            "detEcjS",
            &[
                "hidden", "no-ignore", "no-ignore-vcs", "case-sensitive", "ignore-case", "glob",
                "regex", "fixed-strings", "absolute-path", "list-details", "follow", "full-path",
                "print0", "max-depth=", "min-depth=", "exact-depth=", "type=", "extension=",
                "exclude=", "size=", "changed-within=", "changed-before=", "max-results=",
                "color=", "quiet", "help", "version",
            ],
            PatternThenPaths,
        )),
        "bat" | "batcat" => not_inert(ro(
            "ApnPuL",
            "rHlm",
            &[
                "show-all", "plain", "language=", "line-range=", "highlight-line=", "number",
                "color=", "style=", "theme=", "paging=", "wrap=", "decorations=",
                "list-languages", "list-themes", "help", "version",
            ],
            Paths,
        )),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every program in the table.
    #[rustfmt::skip]
    const NAMES: &[&str] = &[
        "ls", "dir", "vdir", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "pwd",
        "echo", "printf", "which", "whereis", "type", "file", "stat", "du", "df", "tree", "cut",
        "tr", "diff", "cmp", "comm", "basename", "dirname", "realpath", "readlink", "date",
        "printenv", "whoami", "id", "uname", "seq", "jq", "nl", "fold", "fmt", "column",
        "paste", "join", "expand", "unexpand", "rev", "tac", "od", "hexdump", "hd", "xxd",
        "md5sum", "sha256sum", "cksum", "sum", "base64", "base32", "basenc", "sort", "uniq",
        "shuf", "strings", "zcat", "bzcat", "xzcat", "zstdcat", "lz4cat", "ps", "free",
        "uptime", "w", "who", "lscpu", "lsblk", "pgrep", "pstree", "top", "vmstat", "iostat",
        "lsof", "hostname", "locale", "expr", "bc", "numfmt", "nm", "readelf", "objdump",
        "size", "eza", "exa", "fd", "fdfind", "bat", "batcat",
    ];

    /// Invariant: a short option letter is a flag or takes a value, never both (a table
    /// listing both reads it as valued, and a flag read as valued swallows the word after
    /// it unchecked, as `strings -o FILE` did).
    #[test]
    fn no_letter_is_both_a_flag_and_valued() {
        let mut both = Vec::new();
        for name in NAMES {
            let ro = lookup(name).unwrap_or_else(|| panic!("{name} is not in the table"));
            for c in ro.spec.flags.chars() {
                if ro.spec.short_value(c).is_some() {
                    both.push(format!("{name} -{c}"));
                }
            }
        }
        assert!(both.is_empty(), "{both:?}");
    }
}
