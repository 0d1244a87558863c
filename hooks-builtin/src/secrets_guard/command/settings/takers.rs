//! The programs that take a directory away, as data ([`TAKERS`]).

use crate::shell::getopt::Style;
use crate::shell::links::MOUNT_VALUED;

/// Which of a command's operands it takes a settings directory away by: removes, moves, hides
/// (`chmod 000`), or fills with files whose names the guard cannot see (`cp -r x/. .claude/`,
/// `tar -x -C .claude`, `mount --bind x .claude`).
#[derive(Clone, Copy)]
pub(super) enum Takes {
    /// Every operand.
    All,
    /// All but the last (the sources of `mv`, `git mv`, `rsync`); every one with `-t`.
    Sources,
    /// The last (the destination of `mount`, `tar -x -C`), and the value of `-t`.
    Destination,
    /// The destination, when what lands in it has names the guard cannot see: a directory's
    /// contents (`cp -r x/. .claude/`, `rsync -a x/ .claude/`, `cp -rT x .claude`), a glob
    /// or a variable; and a settings directory copied or moved in under its own name
    /// (`cp -r x/.claude .`). (`cp -r docs/commands .claude/` makes `.claude/commands`.)
    Into,
}

/// A program that takes a directory away: its name (and subcommand, and the options before
/// it that take a value), the options one of which it needs to (empty: none) and those with
/// which it does not, the options whose value is a directory it takes, the other options that
/// take a value (so that the value is not read as an operand), and which operands it takes.
pub(super) struct Taker {
    pub(super) program: &'static str,
    pub(super) sub: Option<&'static str>,
    /// Options before the subcommand that take a value; `-C DIR` is a directory to run in
    /// (git's), which the operands after it are relative to.
    pub(super) lead: &'static [&'static str],
    pub(super) needs: &'static [&'static str],
    pub(super) unless: &'static [&'static str],
    /// Options whose value is a directory it takes; a long one may be given abbreviated.
    pub(super) values: &'static [&'static str],
    /// Other options that take a value, as written in full.
    pub(super) skips: &'static [&'static str],
    pub(super) style: Style,
    pub(super) takes: Takes,
    /// With no destination option given, it writes where it runs (`cd .claude && tar -xf
    /// x.tar`).
    pub(super) here: bool,
    /// A source with a trailing slash is its contents, not the directory (rsync's
    /// `x/.claude/`; `cp -r x/.claude/ .` still makes `./.claude`).
    pub(super) slash_contents: bool,
    /// Its first operand is a mode, which takes the directory away only when it takes the
    /// owner's read or search permission (`chmod 000`, `u-x`), not when it adds or keeps
    /// them (`chmod 700`, `u+w`).
    pub(super) mode: bool,
    /// It covers what it is given (a mount): given the project root, a parent of it or the
    /// home directory, it hides the settings directory in it too (`mount --bind x .`).
    pub(super) covers: bool,
    /// What it copies from a directory may merge into an existing destination, whatever the
    /// source is named (`kubectl cp`, whose versions differ on it; `rclone copy`, `ditto`,
    /// `stow`, which copy or link a directory's contents): the destination is taken, and given
    /// the project root, the home directory or a parent of either, the settings directory
    /// in it.
    pub(super) merges: bool,
}

pub(super) const fn taker(program: &'static str, takes: Takes) -> Taker {
    Taker {
        program,
        sub: None,
        lead: &[],
        needs: &[],
        unless: &[],
        values: &[],
        skips: &[],
        style: Style::Gnu,
        takes,
        here: false,
        slash_contents: false,
        mode: false,
        covers: false,
        merges: false,
    }
}

/// git's own options before its subcommand that take a value.
pub(super) const GIT: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
];

/// tar's options that take a value, but for `-C`/`--directory` (GNU tar, bsdtar).
#[rustfmt::skip]
const TAR: &[&str] = &[
    "-f", "-b", "-T", "-X", "-g", "-K", "-N", "-V", "-L", "-F", "-H", "-I", "--file",
    "--files-from", "--exclude-from", "--exclude", "--blocking-factor", "--listed-incremental",
    "--starting-file", "--newer", "--newer-mtime", "--after-date", "--label", "--tape-length",
    "--info-script", "--new-volume-script", "--format", "--use-compress-program", "--transform",
    "--xform", "--owner", "--group", "--mode", "--mtime", "--suffix", "--to-command",
    "--checkpoint-action", "--record-size", "--strip-components", "--exclude-tag",
    "--exclude-tag-under", "--exclude-tag-all", "--occurrence", "--sort", "--quoting-style",
    "--rmt-command", "--rsh-command", "--volno-file", "--owner-map", "--group-map",
];

/// rsync's options that take a value.
#[rustfmt::skip]
const RSYNC: &[&str] = &[
    "-e", "-f", "-B", "-T", "-M", "--rsh", "--rsync-path", "--filter", "--exclude", "--include",
    "--exclude-from", "--include-from", "--files-from", "--temp-dir", "--partial-dir",
    "--backup-dir", "--suffix", "--compare-dest", "--copy-dest", "--link-dest", "--chmod",
    "--chown", "--usermap", "--groupmap", "--log-file", "--log-file-format", "--out-format",
    "--password-file", "--port", "--timeout", "--contimeout", "--bwlimit", "--max-size",
    "--min-size", "--max-delete", "--modify-window", "--block-size", "--compress-level",
    "--compress-choice", "--checksum-choice", "--iconv", "--remote-option", "--sockopts",
    "--outbuf", "--protocol", "--stop-after", "--stop-at", "--max-alloc", "--write-batch",
    "--read-batch", "--only-write-batch", "--info", "--debug", "--address", "--skip-compress",
];

/// Options of the compressors with which the file stays (or nothing is written).
#[rustfmt::skip]
const COMPRESS_KEEPS: &[&str] = &[
    "-c", "--stdout", "--to-stdout", "-k", "--keep", "-l", "--list", "-t", "--test", "--help",
];

/// The compressors' options that take a value (a suffix `-S -k` is no `-k`).
#[rustfmt::skip]
const COMPRESS_VALUED: &[&str] = &[
    "-S", "--suffix", "-o", "--output-dir-flat", "--output-dir-mirror", "-D", "-T", "--threads",
    "-F", "--format", "-C", "--check", "-M", "--memlimit", "--memory", "-B", "--filelist",
];

#[rustfmt::skip]
pub(super) const TAKERS: &[Taker] = &[
    taker("rm", Takes::All),
    taker("rmdir", Takes::All),
    taker("unlink", Takes::All),
    Taker { skips: &["-n", "-s", "--iterations", "--size", "--random-source"], ..taker("shred", Takes::All) },
    taker("trash", Takes::All),
    taker("trash-put", Takes::All),
    taker("gvfs-trash", Takes::All),
    taker("rip", Takes::All),
    taker("rmtrash", Takes::All),
    taker("rimraf", Takes::All),
    Taker { sub: Some("trash"), ..taker("gio", Takes::All) },
    Taker { sub: Some("remove"), ..taker("gio", Takes::All) },
    Taker { sub: Some("move"), ..taker("gio", Takes::Sources) },
    Taker { sub: Some("rename"), ..taker("gio", Takes::All) },
    Taker { sub: Some("copy"), ..taker("gio", Takes::Into) },
    // Renamed: `rename 's/x/y/' .claude` (the expression is no settings directory), `mmv`.
    taker("rename", Takes::All),
    taker("prename", Takes::All),
    taker("file-rename", Takes::All),
    taker("mmv", Takes::Sources),
    // Compressed in place: `settings.json` becomes `settings.json.gz`.
    Taker { unless: COMPRESS_KEEPS, skips: COMPRESS_VALUED, ..taker("gzip", Takes::All) },
    Taker { unless: COMPRESS_KEEPS, skips: COMPRESS_VALUED, ..taker("bzip2", Takes::All) },
    Taker { unless: COMPRESS_KEEPS, skips: COMPRESS_VALUED, ..taker("xz", Takes::All) },
    Taker { unless: COMPRESS_KEEPS, skips: COMPRESS_VALUED, ..taker("lzma", Takes::All) },
    Taker { needs: &["--rm"], unless: COMPRESS_KEEPS, skips: COMPRESS_VALUED, ..taker("zstd", Takes::All) },
    Taker { needs: &["--rm"], unless: COMPRESS_KEEPS, skips: COMPRESS_VALUED, ..taker("lz4", Takes::All) },
    Taker { values: &["-t", "--target-directory"], skips: &["-S", "--suffix"], ..taker("mv", Takes::Sources) },
    // Moved or installed into it under a settings file's name, or of names unseen.
    Taker { values: &["-t", "--target-directory"], skips: &["-S", "--suffix"], ..taker("mv", Takes::Into) },
    Taker { values: &["-t", "--target-directory"], skips: &["-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix", "--strip-program"], ..taker("install", Takes::Into) },
    // A mode or owner of the directory itself (`chmod 000 .claude`) hides what is in it.
    Taker { skips: &["--reference"], mode: true, ..taker("chmod", Takes::All) },
    Taker { skips: &["--reference", "--from"], ..taker("chown", Takes::All) },
    Taker { skips: &["--reference"], ..taker("chgrp", Takes::All) },
    Taker { skips: &["-v", "-p"], ..taker("chattr", Takes::All) },
    Taker { skips: &["-m", "-M", "-x", "-X", "--modify", "--modify-file", "--remove", "--remove-file", "--set", "--set-file"], ..taker("setfacl", Takes::All) },
    Taker { sub: Some("mv"), lead: GIT, ..taker("git", Takes::Sources) },
    Taker { sub: Some("rm"), lead: GIT, unless: &["--cached"], skips: &["--pathspec-from-file"], ..taker("git", Takes::All) },
    // `git stash push -- .claude` takes its changes out of the work tree.
    Taker { sub: Some("stash"), lead: GIT, skips: &["-m", "--message", "--pathspec-from-file"], ..taker("git", Takes::All) },
    // A checkout or worktree made in its place: `git clone URL .claude`, `git worktree add
    // .claude`, `git submodule add URL .claude`.
    Taker { sub: Some("init"), lead: GIT, values: &["--separate-git-dir"], skips: &["-b", "--initial-branch", "--template", "--object-format", "--ref-format", "--shared"], ..taker("git", Takes::Destination) },
    Taker { sub: Some("clone"), lead: GIT, values: &["--separate-git-dir"], skips: &["-b", "--branch", "-o", "--origin", "--depth", "--reference", "-c", "--config", "--filter", "-j", "--jobs", "-u", "--upload-pack", "--template", "--server-option", "--shallow-since", "--shallow-exclude", "--bundle-uri"], ..taker("git", Takes::Destination) },
    Taker { sub: Some("worktree"), lead: GIT, skips: &["-b", "-B", "--reason"], ..taker("git", Takes::All) },
    Taker { sub: Some("submodule"), lead: GIT, skips: &["-b", "--branch", "--name", "--reference", "--depth"], ..taker("git", Takes::All) },
    // Archived and removed: `tar --remove-files`, `zip -m`, `rsync --remove-source-files`.
    Taker { needs: &["--remove-files"], values: &["-C", "--directory"], skips: TAR, style: Style::Tar, ..taker("tar", Takes::All) },
    Taker { needs: &["--remove-files"], values: &["-C", "--directory"], skips: TAR, style: Style::Tar, ..taker("gtar", Takes::All) },
    Taker { needs: &["--remove-files"], values: &["-C", "--directory"], skips: TAR, style: Style::Tar, ..taker("bsdtar", Takes::All) },
    Taker { needs: &["-sdel"], style: Style::Switches, ..taker("7z", Takes::All) },
    Taker { needs: &["-sdel"], style: Style::Switches, ..taker("7za", Takes::All) },
    Taker { needs: &["-sdel"], style: Style::Switches, ..taker("7zz", Takes::All) },
    Taker { sub: Some("move"), ..taker("rclone", Takes::Sources) },
    Taker { sub: Some("moveto"), ..taker("rclone", Takes::Sources) },
    Taker { sub: Some("copy"), merges: true, ..taker("rclone", Takes::Destination) },
    Taker { sub: Some("sync"), merges: true, ..taker("rclone", Takes::Destination) },
    Taker { sub: Some("bisync"), merges: true, ..taker("rclone", Takes::Destination) },
    Taker { sub: Some("move"), merges: true, ..taker("rclone", Takes::Destination) },
    Taker { sub: Some("copyto"), merges: true, ..taker("rclone", Takes::Destination) },
    Taker { sub: Some("moveto"), merges: true, ..taker("rclone", Takes::Destination) },
    Taker { sub: Some("mount"), covers: true, ..taker("rclone", Takes::Destination) },
    Taker { needs: &["-m", "--move"], skips: &["-b", "-n", "-P", "-O", "--temp-path", "--suffixes", "--password", "--output-file"], ..taker("zip", Takes::All) },
    Taker { needs: &["--remove-source-files", "--remove-sent-files"], skips: RSYNC, ..taker("rsync", Takes::Sources) },
    // Filled with files of unknown names: a directory's copy, an archive, a mount, a download.
    Taker { values: &["-t", "--target-directory"], skips: &["-S", "--suffix", "--sparse", "--no-preserve"], ..taker("cp", Takes::Into) },
    Taker { unless: &["-n", "--dry-run", "--list-only"], skips: RSYNC, slash_contents: true, ..taker("rsync", Takes::Into) },
    Taker { skips: &["-P", "-i", "-o", "-F", "-c", "-l", "-S", "-J", "-D", "-X"], ..taker("scp", Takes::Into) },
    Taker { sub: Some("cp"), ..taker("docker", Takes::Into) },
    Taker { sub: Some("cp"), ..taker("podman", Takes::Into) },
    Taker { sub: Some("cp"), skips: &["-n", "--namespace", "-a", "--address"], ..taker("nerdctl", Takes::Into) },
    Taker { sub: Some("rsync"), skips: &["-c", "--container", "-n", "--namespace", "--exclude", "--include"], slash_contents: true, ..taker("oc", Takes::Into) },
    Taker { sub: Some("cp"), skips: &["-c", "--container", "-n", "--namespace", "--retries"], merges: true, ..taker("kubectl", Takes::Into) },
    Taker { sub: Some("cp"), skips: &["-c", "--container", "-n", "--namespace", "--retries"], merges: true, ..taker("oc", Takes::Into) },
    Taker { merges: true, ..taker("ditto", Takes::Destination) },
    Taker { values: &["--target"], skips: MOUNT_VALUED, covers: true, ..taker("mount", Takes::Destination) },
    Taker { skips: &["-o", "-p", "-F", "-i"], covers: true, ..taker("sshfs", Takes::Destination) },
    Taker { skips: &["-o", "-u", "-g", "-p", "-m"], covers: true, ..taker("bindfs", Takes::Destination) },
    Taker { skips: &["-o"], covers: true, ..taker("squashfuse", Takes::Destination) },
    Taker { skips: &["-o"], covers: true, ..taker("fuse-overlayfs", Takes::Destination) },
    Taker { needs: &["-x", "--extract", "--get"], values: &["-C", "--directory", "--one-top-level"], skips: TAR, style: Style::Tar, here: true, ..taker("tar", Takes::Destination) },
    Taker { needs: &["-x", "--extract", "--get"], values: &["-C", "--directory", "--one-top-level"], skips: TAR, style: Style::Tar, here: true, ..taker("gtar", Takes::Destination) },
    Taker { needs: &["-x", "--extract", "--get"], values: &["-C", "--directory", "--one-top-level"], skips: TAR, style: Style::Tar, here: true, ..taker("bsdtar", Takes::Destination) },
    Taker { values: &["-d"], skips: &["-P", "-x"], unless: &["-l", "-v", "-t", "-p", "-c", "-Z", "-z"], here: true, ..taker("unzip", Takes::Destination) },
    Taker { values: &["-t", "--target"], skips: &["-d", "--dir", "-S", "--delete", "-D", "--restow", "-R", "--ignore", "--defer", "--override"], merges: true, ..taker("stow", Takes::Destination) },
    // Downloads into it, under names the guard does not read (`wget -r -P .claude URL`).
    Taker { values: &["-P", "--directory-prefix"], skips: &["-O", "--output-document", "-o", "--output-file", "-U", "--user-agent", "--header", "-e", "--execute"], ..taker("wget", Takes::Destination) },
    Taker { values: &["--output-dir"], skips: &["-o", "--output", "-H", "--header", "-d", "--data", "-X", "--request", "-u", "--user", "-A", "--user-agent", "-e", "--referer", "-b", "--cookie", "-c", "--cookie-jar", "-T", "--upload-file", "-F", "--form"], ..taker("curl", Takes::Destination) },
    Taker { values: &["-d", "--dir"], skips: &["-o", "--out", "-i", "--input-file", "-x", "--max-connection-per-server", "-s", "--split"], ..taker("aria2c", Takes::Destination) },
];
