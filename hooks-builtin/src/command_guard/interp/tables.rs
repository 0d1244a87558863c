//! The calls each scanned language's code is searched for: deletions, shell-outs, code
//! run in the same language.

/// The calls of a language the scan looks for. Names match a call written with the same
/// qualifier or a longer one (`rmtree` matches `shutil.rmtree`, `os.remove` does not match
/// `x.remove`); `bare` names match only unqualified (`exec`, not `re.exec`).
pub(super) struct Table {
    /// Delete the paths given as arguments.
    pub(super) delete: &'static [&'static str],
    /// Same, matched only unqualified (Perl and PHP functions: `unlink`, not `$x->unlink`).
    pub(super) delete_bare: &'static [&'static str],
    /// Methods that delete the path they are called on (`Path('x').unlink()`); called bare,
    /// they delete their argument.
    pub(super) delete_method: &'static [&'static str],
    /// Run their arguments as a shell command (one string) or an argv (a list, or several
    /// strings).
    pub(super) shell: &'static [&'static str],
    /// Same, matched only unqualified.
    pub(super) shell_bare: &'static [&'static str],
    /// Run a program in a way the scan does not read: always asked. Prefixes.
    pub(super) opaque: &'static [&'static str],
    /// Run code of the same language (Python's `exec`), unqualified.
    pub(super) code_bare: &'static [&'static str],
    /// Write, truncate or create the path given first (`os.truncate`, `fs.writeFileSync`,
    /// `file_put_contents`): a literal one is judged as the shell's `: > PATH`.
    pub(super) write: &'static [&'static str],
    /// Open the path given first in the mode given second (`open(p, 'w')`): a mode that
    /// writes (`w`, `a`, `x`, `+`) is a write.
    pub(super) open: &'static [&'static str],
    /// Move the path given first to the one given second (`os.rename`, `fs.renameSync`):
    /// literal ones are judged as `mv -- FROM TO`.
    pub(super) rename: &'static [&'static str],
    /// Methods of a path object that write it (`Path('x').write_text(…)`).
    pub(super) write_method: &'static [&'static str],
    /// Methods of a path object that move it (`Path('x').rename(…)`).
    pub(super) rename_method: &'static [&'static str],
}

pub(super) const PYTHON: Table = Table {
    delete: &[
        "rmtree",
        "os.remove",
        "os.unlink",
        "os.rmdir",
        "os.removedirs",
    ],
    delete_bare: &[],
    delete_method: &["unlink", "rmdir"],
    shell: &[
        "os.system",
        "os.popen",
        "subprocess.run",
        "subprocess.call",
        "subprocess.Popen",
        "subprocess.check_call",
        "subprocess.check_output",
        "subprocess.getoutput",
        "subprocess.getstatusoutput",
        "commands.getoutput",
        "pty.spawn",
        "asyncio.create_subprocess_shell",
    ],
    shell_bare: &[
        "system",
        "popen",
        "check_output",
        "check_call",
        "getoutput",
        "Popen",
    ],
    opaque: &[
        "os.exec",
        "os.spawn",
        "os.posix_spawn",
        "asyncio.create_subprocess_exec",
    ],
    code_bare: &["exec", "eval"],
    write: &["os.truncate"],
    open: &["open", "io.open", "codecs.open"],
    rename: &["os.rename", "os.replace", "os.renames", "shutil.move"],
    write_method: &["write_text", "write_bytes"],
    rename_method: &["rename", "replace"],
};

pub(super) const PERL: Table = Table {
    delete: &[
        "File.Path.rmtree",
        "File.Path.remove_tree",
        "CORE.unlink",
        "CORE.rmdir",
    ],
    delete_bare: &["unlink", "rmtree", "remove_tree", "rmdir"],
    delete_method: &[],
    shell: &["CORE.system", "CORE.exec", "CORE.readpipe"],
    shell_bare: &["system", "exec", "readpipe"],
    opaque: &[],
    code_bare: &["eval"],
    write: &["truncate", "CORE.truncate"],
    open: &[],
    rename: &["rename", "CORE.rename", "File.Copy.move", "File.Copy.mv"],
    write_method: &[],
    rename_method: &[],
};

pub(super) const RUBY: Table = Table {
    delete: &[
        "rm_rf",
        "rm_r",
        "rm_f",
        "FileUtils.rm",
        "FileUtils.rmtree",
        "FileUtils.rmdir",
        "FileUtils.remove",
        "FileUtils.remove_dir",
        "FileUtils.remove_entry",
        "FileUtils.remove_entry_secure",
        "File.delete",
        "File.unlink",
        "Dir.rmdir",
        "Dir.delete",
        "Dir.unlink",
    ],
    delete_bare: &[],
    delete_method: &["rmtree"],
    shell: &[
        "Kernel.system",
        "Kernel.exec",
        "Kernel.spawn",
        "Process.spawn",
        "IO.popen",
        "Open3.capture2",
        "Open3.capture2e",
        "Open3.capture3",
        "Open3.popen2",
        "Open3.popen2e",
        "Open3.popen3",
        "PTY.spawn",
    ],
    shell_bare: &["system", "exec", "spawn"],
    opaque: &[],
    code_bare: &["eval"],
    write: &[
        "File.write",
        "File.binwrite",
        "IO.write",
        "IO.binwrite",
        "File.truncate",
    ],
    open: &["File.open", "File.new"],
    rename: &["File.rename", "FileUtils.mv", "FileUtils.move"],
    write_method: &[],
    rename_method: &[],
};

pub(super) const JS: Table = Table {
    delete: &[
        "rmSync",
        "rmdirSync",
        "unlinkSync",
        "fs.rm",
        "fs.rmdir",
        "fs.unlink",
        "promises.rm",
        "promises.rmdir",
        "promises.unlink",
        "fsp.rm",
        "fs.remove",
        "fse.remove",
        "removeSync",
        "rimraf",
        "rimrafSync",
        "rimraf.sync",
        "Deno.remove",
        "Deno.removeSync",
    ],
    delete_bare: &[],
    delete_method: &[],
    shell: &[
        "execSync",
        "spawnSync",
        "execFileSync",
        "execFile",
        "child_process.exec",
        "child_process.spawn",
        "cp.exec",
        "cp.spawn",
        "Bun.spawn",
        "Bun.spawnSync",
        "Bun.$",
        "Deno.run",
    ],
    shell_bare: &["exec", "spawn", "$"],
    opaque: &["Deno.Command"],
    code_bare: &["eval", "Function"],
    write: &[
        "writeFileSync",
        "appendFileSync",
        "truncateSync",
        "fs.writeFile",
        "fs.appendFile",
        "fs.truncate",
        "promises.writeFile",
        "promises.appendFile",
        "promises.truncate",
        "createWriteStream",
        "outputFileSync",
        "Deno.writeTextFile",
        "Deno.writeTextFileSync",
        "Deno.writeFile",
        "Deno.writeFileSync",
        "Deno.truncate",
        "Deno.truncateSync",
        "Bun.write",
    ],
    open: &["openSync", "fs.open", "promises.open"],
    rename: &[
        "renameSync",
        "fs.rename",
        "promises.rename",
        "moveSync",
        "fs.move",
        "Deno.rename",
        "Deno.renameSync",
    ],
    write_method: &[],
    rename_method: &[],
};

pub(super) const PHP: Table = Table {
    delete: &[],
    delete_bare: &["unlink", "rmdir"],
    delete_method: &[],
    shell: &[],
    shell_bare: &[
        "system",
        "exec",
        "shell_exec",
        "passthru",
        "popen",
        "proc_open",
        "pcntl_exec",
    ],
    opaque: &[],
    code_bare: &["eval"],
    write: &["file_put_contents"],
    open: &["fopen"],
    rename: &["rename"],
    write_method: &[],
    rename_method: &[],
};

pub(super) const LUA: Table = Table {
    delete: &["os.remove"],
    delete_bare: &[],
    delete_method: &[],
    shell: &["os.execute", "io.popen"],
    shell_bare: &[],
    opaque: &[],
    code_bare: &["load", "loadstring", "dostring"],
    write: &[],
    open: &["io.open"],
    rename: &["os.rename"],
    write_method: &[],
    rename_method: &[],
};

pub(super) const R: Table = Table {
    delete: &["unlink", "file.remove", "fs.dir_delete", "fs.file_delete"],
    delete_bare: &[],
    delete_method: &[],
    shell: &["system", "system2", "shell", "pipe", "processx.run"],
    shell_bare: &[],
    opaque: &[],
    code_bare: &["eval"],
    write: &[],
    open: &[],
    rename: &["file.rename", "fs.file_move", "fs.dir_move"],
    write_method: &[],
    rename_method: &[],
};
