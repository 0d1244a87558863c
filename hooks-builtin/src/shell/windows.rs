//! Command lines in Windows's shells, read the way the guards read a POSIX one: cmd.exe's
//! (`cmd /c LINE`) and PowerShell's (`pwsh -c CODE`). Neither takes a backslash for an escape
//! (it separates a path's components: `%USERPROFILE%\.ssh\id_rsa`), and each names the home
//! directory in a way of its own.

/// cmd.exe's `line` as a POSIX shell reads the same command: the home directory's variables
/// (`%USERPROFILE%`, `%HOMEDRIVE%%HOMEPATH%`, `%HOME%`, in any case) become `~`, cmd's escape
/// is taken away (`^&` is `&`), backslashes become slashes, and an apostrophe, which is no
/// quote to cmd, is escaped.
pub(crate) fn cmd_line(line: &str) -> String {
    const HOME: &[&str] = &["%HOMEDRIVE%%HOMEPATH%", "%USERPROFILE%", "%HOME%"];
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if let Some(home) = HOME.iter().find(|h| starts_with_ignore_case(rest, h)) {
            out.push('~');
            rest = &rest[home.len()..];
            continue;
        }
        match c {
            '^' => {
                rest = &rest[1..];
                if let Some(next) = rest.chars().next() {
                    push_read(&mut out, next);
                    rest = &rest[next.len_utf8()..];
                }
                continue;
            }
            c => push_read(&mut out, c),
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// A character of a cmd line as a POSIX shell should see it.
fn push_read(out: &mut String, c: char) {
    match c {
        '\\' => out.push('/'),
        '\'' => out.push_str("\\'"),
        c => out.push(c),
    }
}

/// PowerShell's `code` as a POSIX shell reads the same commands: the home directory
/// (`$HOME`, `$env:USERPROFILE`, `${env:USERPROFILE}`, `$env:HOME`, in any case) becomes `~`,
/// PowerShell's escape is taken away (`` `n `` is `n`), and backslashes become slashes.
pub(crate) fn powershell_line(code: &str) -> String {
    const HOME: &[&str] = &[
        "${env:USERPROFILE}",
        "${env:HOME}",
        "$env:USERPROFILE",
        "$env:HOME",
        "$HOME",
    ];
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(c) = rest.chars().next() {
        let home = HOME.iter().find(|h| {
            starts_with_ignore_case(rest, h)
                && (h.ends_with('}')
                    || !rest[h.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'))
        });
        if let Some(home) = home {
            out.push('~');
            rest = &rest[home.len()..];
            continue;
        }
        match c {
            '`' => {
                rest = &rest[1..];
                if let Some(next) = rest.chars().next() {
                    out.push(next);
                    rest = &rest[next.len_utf8()..];
                }
                continue;
            }
            '\\' => out.push('/'),
            c => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Whether `text` starts with `prefix` (ASCII), in any case.
fn starts_with_ignore_case(text: &str, prefix: &str) -> bool {
    text.len() >= prefix.len()
        && text.is_char_boundary(prefix.len())
        && text[..prefix.len()].eq_ignore_ascii_case(prefix)
}

#[cfg(test)]
mod tests {
    use super::{cmd_line, powershell_line};

    #[test]
    fn cmd_names_the_home_and_paths_its_own_way() {
        assert_eq!(
            cmd_line(r"type %USERPROFILE%\.ssh\id_rsa"),
            "type ~/.ssh/id_rsa"
        );
        assert_eq!(cmd_line(r"type %homedrive%%homepath%\.env"), "type ~/.env");
        assert_eq!(cmd_line(r"rd /s /q C:\Users"), "rd /s /q C:/Users");
        assert_eq!(cmd_line("r^m -rf ^~"), "rm -rf ~");
        assert_eq!(cmd_line("echo don't"), r"echo don\'t");
        assert_eq!(cmd_line("echo %PATH%"), "echo %PATH%");
    }

    #[test]
    fn powershell_names_the_home_and_paths_its_own_way() {
        assert_eq!(
            powershell_line(r"Get-Content $env:USERPROFILE\.ssh\id_rsa"),
            "Get-Content ~/.ssh/id_rsa"
        );
        assert_eq!(
            powershell_line(r"gc ${ENV:UserProfile}/.aws/credentials"),
            "gc ~/.aws/credentials"
        );
        assert_eq!(powershell_line(r"gc $HOME\.env"), "gc ~/.env");
        assert_eq!(powershell_line(r"gc $HOMEPATH\x"), "gc $HOMEPATH/x");
        assert_eq!(powershell_line("Write-Host `$HOME"), "Write-Host $HOME");
    }
}
