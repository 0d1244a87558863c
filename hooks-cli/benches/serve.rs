//! `hooks serve` against its floor: one PreToolUse `Bash` decision with the default guard set
//! over keep-alive HTTP, next to a trivial HTTP server that answers `{}` (measured in the same
//! run), `hooks claude` as a process per event, and 64 concurrent clients.
//!
//! A bench binary rather than criterion: the targets are about distributions (p50, p99),
//! concurrency and memory over many requests, which it prints as one table.
//!
//! Run (release): `cargo bench -p hookrail-cli --bench serve`. `SERVE_BENCH_REQUESTS` sets the
//! requests of the long run that checks the daemon's memory (default 200 000; the target is
//! stated for 1 000 000). `SERVE_BENCH_BUILTIN='{}'` gives the project a `builtin:` section
//! (`{}`: no builtin policy), to tell the guards' cost from the pipeline's.
//! `SERVE_BENCH_ONLY` names the parts to run, comma-separated (`keep-alive`, `process`,
//! `concurrent`, `memory`; default all). The keep-alive part also prints the daemon's CPU
//! time per decision, read from `/proc`. `SERVE_BENCH_HOOKS` is a `hooks` binary to measure
//! instead of the one cargo built, so that two builds can be compared in one session against
//! the same floor. `SERVE_BENCH_PIN=C:S` (Linux, `taskset`) runs the client on CPU `C` and
//! both servers on CPU `S`, so that every round crosses CPUs the same way: on a 2-vCPU VM the
//! floor otherwise moves between ~8 µs (client and server on one vCPU) and ~80 µs (on two)
//! from round to round, and its ratio with the daemon moves with it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "bench-token-0123456789abcdef";

fn payload(cwd: &str) -> String {
    format!(
        r#"{{"session_id":"bench","transcript_path":"/dev/null","cwd":"{cwd}","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"cargo test --workspace"}},"tool_use_id":"toolu_bench"}}"#
    )
}

/// A keep-alive HTTP/1.1 client on one connection.
struct Client {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
    request: Vec<u8>,
}

impl Client {
    fn new(addr: SocketAddr, body: &str) -> Client {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        let request = format!(
            "POST /claude HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes();
        Client {
            writer: stream.try_clone().expect("clone"),
            reader: BufReader::new(stream),
            request,
        }
    }

    /// One request and its whole response; returns the response's status line.
    fn round_trip(&mut self) -> Duration {
        let started = Instant::now();
        self.writer.write_all(&self.request).expect("write");
        let mut length = 0;
        let mut line = String::new();
        let mut first = true;
        loop {
            line.clear();
            self.reader.read_line(&mut line).expect("read");
            if first {
                assert!(line.starts_with("HTTP/1.1 200"), "{line}");
                first = false;
            }
            let lower = line.to_ascii_lowercase();
            if let Some(value) = lower.strip_prefix("content-length:") {
                length = value.trim().parse().expect("length");
            }
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).expect("body");
        started.elapsed()
    }
}

struct Stats {
    p50: Duration,
    p99: Duration,
    mean: Duration,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q) as usize];
    let total: Duration = samples.iter().sum();
    Stats {
        p50: at(0.5),
        p99: at(0.99),
        mean: total / u32::try_from(samples.len()).unwrap_or(u32::MAX),
    }
}

fn sequential(addr: SocketAddr, body: &str, warmup: usize, n: usize) -> Stats {
    let mut client = Client::new(addr, body);
    for _ in 0..warmup {
        client.round_trip();
    }
    stats((0..n).map(|_| client.round_trip()).collect())
}

/// Set in the environment of this binary started again as the floor's server.
const FLOOR_CHILD: &str = "SERVE_BENCH_FLOOR_CHILD";

/// A server that answers every request with `{}`: the floor of any HTTP hook. It is this
/// binary started again ([`serve_floor`]): a process of its own, reached over loopback as the
/// daemon is. (In the client's own process, its round trip was ~7 µs in about half the runs
/// on a 2-vCPU VM and ~70 µs in the others; in a process of its own, ~7 µs is rarer. Each
/// round's figures are printed so that a run that changed regime shows.)
fn floor_server() -> (Child, SocketAddr) {
    let mut child = Command::new(std::env::current_exe().expect("this bench's path"))
        .env(FLOOR_CHILD, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the floor's server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the floor's address");
    (child, line.trim().parse().expect("the floor's address"))
}

/// The floor's server: axum on tokio's multi-thread runtime with two workers, as the daemon
/// runs, answering `{}` to any POST without reading its body. Prints its address, then serves
/// until it is killed.
fn serve_floor() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let app = axum::Router::new().route(
            "/claude",
            axum::routing::post(|| async { axum::Json(serde_json::json!({})) }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        println!("{}", listener.local_addr().expect("addr"));
        std::io::stdout().flush().expect("flush");
        use axum::serve::ListenerExt;
        let listener = listener.tap_io(|s| {
            let _ = s.set_nodelay(true);
        });
        axum::serve(listener, app).await.expect("serve");
    });
}

/// The `hooks` binary under test: `SERVE_BENCH_HOOKS`, or the one cargo built for this bench.
fn hooks_exe() -> std::path::PathBuf {
    // Absolute: the forwarders' directories link to it.
    std::env::var_os("SERVE_BENCH_HOOKS").map_or_else(
        || env!("CARGO_BIN_EXE_hooks").into(),
        |path| std::path::absolute(path).expect("SERVE_BENCH_HOOKS"),
    )
}

/// Whether `SERVE_BENCH_ONLY` (when set) names this part.
fn part(name: &str) -> bool {
    std::env::var("SERVE_BENCH_ONLY").map_or(true, |only| only.split(',').any(|p| p.trim() == name))
}

fn start_daemon(project: &std::path::Path, state: &std::path::Path) -> (Child, SocketAddr) {
    let mut child = Command::new(hooks_exe())
        .args(["serve", "--listen", "127.0.0.1:0", "--project"])
        .arg(project)
        .env("HOOKS_TOKEN", TOKEN)
        .env("XDG_STATE_HOME", state)
        .env("HOOKS_TRUST_FILE", state.join("trust.json"))
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hooks serve");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        let line = lines.next().expect("listening").expect("line");
        if let Some(addr) = line.strip_prefix("hooks serve: listening on http://") {
            break addr.parse().expect("addr");
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (child, addr)
}

/// The CPU time (user + sys) process `pid` has used, from `/proc` (zero where it cannot be
/// read).
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command name, which is in parentheses and may hold blanks.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    let ticks = |k: usize| {
        fields
            .get(k)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime, fields 14 and 15 of proc(5), in clock ticks of 1/100 s (USER_HZ on
    // Linux).
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap_or(0)
}

/// One process with `body` on its stdin, waited for; how long it took.
fn spawn_timed(command: &mut Command, body: &str) -> Duration {
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(body.as_bytes())
        .expect("write");
    assert!(child.wait().expect("wait").success());
    started.elapsed()
}

fn spawn_claude(args: &[&str], state: &std::path::Path, body: &str) -> Duration {
    let mut command = Command::new(hooks_exe());
    command.arg("claude").args(args);
    spawn_client(command, state, body)
}

/// A forwarding client (`hooks claude`, `hooks-forward`) in the bench's state and with its
/// token, timed.
fn spawn_client(mut command: Command, state: &std::path::Path, body: &str) -> Duration {
    command
        .env("HOOKS_TOKEN", TOKEN)
        .env("XDG_STATE_HOME", state)
        .env("HOOKS_TRUST_FILE", state.join("trust.json"))
        .env_remove("CLAUDE_PROJECT_DIR");
    spawn_timed(&mut command, body)
}

fn spawn_floor(body: &str) -> Duration {
    spawn_timed(&mut Command::new("cat"), body)
}

/// The floor the target names: a minimal statically linked program that reads its stdin and
/// prints `{}`, compiled here with the toolchain's `rustc`. `None` (and said) when it cannot
/// be built, e.g. without a static C library.
fn static_floor(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    let source = dir.join("floor.rs");
    let binary = dir.join("floor");
    std::fs::write(
        &source,
        "use std::io::{Read, Write};\nfn main() {\n    let mut input = Vec::new();\n    std::io::stdin().read_to_end(&mut input).unwrap();\n    std::io::stdout().write_all(b\"{}\").unwrap();\n}\n",
    )
    .ok()?;
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let built = Command::new(rustc)
        .args(["-O", "-C", "target-feature=+crt-static", "-o"])
        .arg(&binary)
        .arg(&source)
        .status();
    match built {
        Ok(status) if status.success() => Some(binary),
        other => {
            println!("  (no static floor: rustc -C target-feature=+crt-static gave {other:?})");
            None
        }
    }
}

/// `hooks-forward` built for this bench (release; statically linked when `crt_static`, as
/// docs/forwarder.md says to build it), in a directory of its own beside a link to the `hooks`
/// under test, which is where it looks for `hooks`. Built in a target directory of its own
/// (`<target>/forwarder-static`, `-dynamic`), so this cargo does not wait on the one running
/// the bench. `None` (and said) when the build fails.
/// The flags of hooks-forward/README.md's static build: the C library linked in, and SHA-256
/// without run-time CPU detection (each `cpuid` traps to the hypervisor on a VM).
const STATIC_FORWARDER_FLAGS: &str = "-C target-feature=+crt-static --cfg sha2_backend=\"soft\"";

/// The profile settings of that build: link-time optimization in one codegen unit.
const STATIC_FORWARDER_PROFILE: [(&str, &str); 2] = [
    ("CARGO_PROFILE_RELEASE_LTO", "true"),
    ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1"),
];

fn forwarder(crt_static: bool, dir: &std::path::Path) -> Option<std::path::PathBuf> {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let kind = if crt_static { "static" } else { "dynamic" };
    let target_dir = target.join(format!("forwarder-{kind}"));
    let host = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .arg("-vV")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        })?;
    let built = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "hookrail-forward",
            "--bin",
            "hooks-forward",
            "--target",
        ])
        .arg(&host)
        .arg("--target-dir")
        .arg(&target_dir)
        .env(
            "RUSTFLAGS",
            if crt_static {
                STATIC_FORWARDER_FLAGS
            } else {
                ""
            },
        )
        .envs(
            STATIC_FORWARDER_PROFILE
                .iter()
                .filter(|_| crt_static)
                .copied(),
        )
        .current_dir(&workspace)
        .status();
    if !matches!(built, Ok(status) if status.success()) {
        println!("  (no {kind} hooks-forward: cargo build gave {built:?})");
        return None;
    }
    let home = dir.join(kind);
    std::fs::create_dir_all(&home).ok()?;
    let exe = home.join("hooks-forward");
    std::fs::copy(
        target_dir.join(&host).join("release").join("hooks-forward"),
        &exe,
    )
    .ok()?;
    std::os::unix::fs::symlink(hooks_exe(), home.join("hooks")).ok()?;
    Some(exe)
}

fn spawn_forwarder(
    exe: &std::path::Path,
    args: &[&str],
    state: &std::path::Path,
    body: &str,
) -> Duration {
    let mut command = Command::new(exe);
    command.args(args);
    spawn_client(command, state, body)
}

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

fn main() {
    if std::env::var_os(FLOOR_CHILD).is_some() {
        serve_floor();
        return;
    }
    // `cargo bench` passes `--bench`; nothing else is taken.
    let project = tempfile::tempdir().expect("project");
    let state = tempfile::tempdir().expect("state");
    if let Ok(builtin) = std::env::var("SERVE_BENCH_BUILTIN") {
        std::fs::write(
            project.path().join("hooks.yaml"),
            format!("enabled: true\nbuiltin: {builtin}\nhooks: []\n"),
        )
        .expect("hooks.yaml");
    }
    let body = payload(&project.path().display().to_string());
    let pins = std::env::var("SERVE_BENCH_PIN").ok().map(|pins| {
        let (client, server) = pins.split_once(':').expect("SERVE_BENCH_PIN=CLIENT:SERVER");
        (client.to_owned(), server.to_owned())
    });
    if let Some((client, _)) = &pins {
        pin(std::process::id(), client);
    }
    let (mut floor_child, floor) = floor_server();
    let (mut daemon, addr) = start_daemon(project.path(), state.path());
    let pid = daemon.id();
    if let Some((_, server)) = &pins {
        pin(floor_child.id(), server);
        pin(pid, server);
    }

    // 1. Sequential keep-alive round trips, floor and daemon interleaved in rounds.
    let d50 = part("keep-alive").then(|| keep_alive((floor, floor_child.id()), (addr, pid), &body));
    // 2. A process per event, and the forwarding clients.
    if part("process") {
        per_process(project.path(), state.path(), &body, d50);
    }
    // 3. 64 concurrent keep-alive clients.
    if part("concurrent") {
        concurrent(addr, &body);
    }
    // 4. Memory over a long run.
    if part("memory") {
        memory(addr, &body, pid);
    }
    for child in [&mut daemon, &mut floor_child] {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Pins every thread of process `pid` to the CPUs `cpus` (a `taskset` list), for
/// `SERVE_BENCH_PIN`.
fn pin(pid: u32, cpus: &str) {
    let status = Command::new("taskset")
        .args(["-a", "-p", "-c", cpus, &pid.to_string()])
        .stdout(Stdio::null())
        .status()
        .expect("taskset (util-linux), for SERVE_BENCH_PIN");
    assert!(status.success(), "taskset -a -p -c {cpus} {pid}: {status}");
}

/// Sequential keep-alive round trips, floor and daemon interleaved in rounds; the daemon's
/// median p50.
fn keep_alive(
    (floor, floor_pid): (SocketAddr, u32),
    (addr, pid): (SocketAddr, u32),
    body: &str,
) -> Duration {
    let (mut floor_all, mut daemon_all) = (Vec::new(), Vec::new());
    // The daemon's CPU time over its rounds: a figure that moves far less than latency on a
    // shared machine, and the one a change to the decision's work shows first. The floor's
    // beside it: what any server on this stack spends per request.
    let (mut cpu, mut floor_cpu) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..5 {
        // The same request as the daemon's: the floor of this hook, not of an empty one.
        let before = cpu_time(floor_pid);
        let f = sequential(floor, body, 500, 4_000);
        floor_cpu += cpu_time(floor_pid).saturating_sub(before);
        let before = cpu_time(pid);
        let d = sequential(addr, body, 500, 4_000);
        cpu += cpu_time(pid).saturating_sub(before);
        floor_all.push(f);
        daemon_all.push(d);
    }
    let pick = |all: &[Stats], f: fn(&Stats) -> Duration| {
        let mut v: Vec<Duration> = all.iter().map(f).collect();
        v.sort();
        v[v.len() / 2]
    };
    let (f50, f99) = (pick(&floor_all, |s| s.p50), pick(&floor_all, |s| s.p99));
    let (d50, d99, dmean) = (
        pick(&daemon_all, |s| s.p50),
        pick(&daemon_all, |s| s.p99),
        pick(&daemon_all, |s| s.mean),
    );
    println!("keep-alive round trip, 5 rounds x 4 000 (median of rounds)");
    let rounds: Vec<String> = (floor_all.iter().zip(&daemon_all))
        .map(|(f, d)| format!("{}/{}", us(f.p50), us(d.p50)))
        .collect();
    println!("  each round's p50, floor/daemon: {}", rounds.join(", "));
    println!(
        "  floor ({{}} server)      p50 {}  p99 {}",
        us(f50),
        us(f99)
    );
    println!(
        "  hooks serve decision   p50 {}  p99 {}  mean {}   p50 ratio {:.2}x",
        us(d50),
        us(d99),
        us(dmean),
        d50.as_secs_f64() / f50.as_secs_f64()
    );
    println!(
        "  hooks serve CPU (user + sys) per decision, warm-up included: {}",
        us(cpu / (5 * 4_500))
    );
    println!(
        "  floor server CPU (user + sys) per request, warm-up included: {}",
        us(floor_cpu / (5 * 4_500))
    );

    d50
}

/// A process per event (`hooks claude --no-daemon`), the forwarding clients and their floors.
fn per_process(
    project: &std::path::Path,
    state: &std::path::Path,
    body: &str,
    d50: Option<Duration>,
) {
    let project_arg = project.display().to_string();
    let runs = 300;
    let in_process = stats(
        (0..runs)
            .map(|_| spawn_claude(&["--no-daemon", "--project", &project_arg], state, body))
            .collect(),
    );
    // Interleaved, one of each per round, so that a change in the machine's load falls on
    // all of them alike.
    let floor_dir = tempfile::tempdir().expect("floor dir");
    let minimal = static_floor(floor_dir.path());
    let forwarders: Vec<(&str, std::path::PathBuf)> = [("static", true), ("dynamic", false)]
        .into_iter()
        .filter_map(|(kind, crt_static)| Some((kind, forwarder(crt_static, floor_dir.path())?)))
        .collect();
    let mut forwarder_runs: Vec<Vec<Duration>> = vec![Vec::new(); forwarders.len()];
    let (mut forwarded, mut cat, mut minimal_runs, mut version) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // Each round starts with the next program: what runs just before one (a large binary
    // exiting, say) then falls on all of them alike too.
    let programs = forwarders.len() + 4;
    for round in 0..runs {
        for turn in 0..programs {
            match (turn + round) % programs {
                f if f < forwarders.len() => forwarder_runs[f].push(spawn_forwarder(
                    &forwarders[f].1,
                    &["--project", &project_arg],
                    state,
                    body,
                )),
                p => match p - forwarders.len() {
                    0 => forwarded.push(spawn_claude(&["--project", &project_arg], state, body)),
                    1 => cat.push(spawn_floor(body)),
                    2 => {
                        if let Some(minimal) = &minimal {
                            minimal_runs.push(spawn_timed(&mut Command::new(minimal), body));
                        }
                    }
                    _ => version.push(spawn_timed(Command::new(hooks_exe()).arg("--version"), "")),
                },
            }
        }
    }
    let (forwarded, cat, version) = (stats(forwarded), stats(cat), stats(version));
    println!("process per event, {runs} runs each");
    let faster = d50
        .map(|d50| {
            format!(
                "daemon p50 is {:.0}x faster",
                in_process.p50.as_secs_f64() / d50.as_secs_f64()
            )
        })
        .unwrap_or_default();
    println!(
        "  hooks claude --no-daemon   p50 {}  p99 {}   {faster}",
        us(in_process.p50),
        us(in_process.p99),
    );
    println!(
        "  hooks claude -> daemon     p50 {}  p99 {}   {:.2}x cat",
        us(forwarded.p50),
        us(forwarded.p99),
        forwarded.p50.as_secs_f64() / cat.p50.as_secs_f64()
    );
    println!(
        "  floor: cat < payload       p50 {}  p99 {}",
        us(cat.p50),
        us(cat.p99)
    );
    let minimal = (!minimal_runs.is_empty()).then(|| stats(minimal_runs));
    if let Some(minimal) = &minimal {
        println!(
            "  floor: static {{}} program   p50 {}  p99 {}   hooks claude forwarding is {:.2}x this",
            us(minimal.p50),
            us(minimal.p99),
            forwarded.p50.as_secs_f64() / minimal.p50.as_secs_f64()
        );
    }
    for ((kind, _), runs) in forwarders.iter().zip(forwarder_runs) {
        let runs = stats(runs);
        let ratio = minimal
            .as_ref()
            .map(|m| {
                format!(
                    "{:.2}x the static program",
                    runs.p50.as_secs_f64() / m.p50.as_secs_f64()
                )
            })
            .unwrap_or_default();
        println!(
            "  hooks-forward ({kind:7}) -> daemon  p50 {}  p99 {}   {ratio}",
            us(runs.p50),
            us(runs.p99),
        );
    }
    println!(
        "  hooks --version            p50 {}  p99 {}   {:.2}x cat: starting our binary",
        us(version.p50),
        us(version.p99),
        version.p50.as_secs_f64() / cat.p50.as_secs_f64()
    );
}

/// 64 concurrent keep-alive clients: throughput and p99.
fn concurrent(addr: SocketAddr, body: &str) {
    let clients = 64;
    let each = 500;
    let started = Instant::now();
    let threads: Vec<_> = (0..clients)
        .map(|_| {
            let body = body.to_owned();
            std::thread::spawn(move || {
                let mut client = Client::new(addr, &body);
                (0..each).map(|_| client.round_trip()).collect::<Vec<_>>()
            })
        })
        .collect();
    let all: Vec<Duration> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("client"))
        .collect();
    let elapsed = started.elapsed();
    let total = all.len();
    let c = stats(all);
    println!(
        "{clients} concurrent clients x {each}: {:.0} decisions/s, p50 {}, p99 {}",
        total as f64 / elapsed.as_secs_f64(),
        us(c.p50),
        us(c.p99)
    );
}

/// The daemon's memory over a long run of requests.
fn memory(addr: SocketAddr, body: &str, pid: u32) {
    let requests: usize = std::env::var("SERVE_BENCH_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let mut client = Client::new(addr, body);
    let warm = requests / 10;
    for _ in 0..warm {
        client.round_trip();
    }
    let before = rss_kib(pid);
    for _ in warm..requests {
        client.round_trip();
    }
    let after = rss_kib(pid);
    println!(
        "RSS over {requests} requests: {before} KiB after {warm}, {after} KiB at the end ({:+.1} %)",
        (after as f64 - before as f64) / before as f64 * 100.0
    );
}
