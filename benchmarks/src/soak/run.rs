//! One soak run from start to verdict: settings, the server process, the load, the sampler
//! thread, and the files and summary at the end.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};

use super::load::{self, Counters};
use super::ops::Kind;
use super::sample::{self, Sample};
use super::stdio::StdioServer;
use super::verdict::{self, Trend};
use crate::bins::BinLocator;

/// Settings of a run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Length of the load.
    pub duration: Duration,
    /// Concurrent workers (connections).
    pub workers: usize,
    /// Whether the stdio server runs beside the HTTP one.
    pub stdio: bool,
    /// Operations per second across all HTTP workers (`None`: as fast as the server answers).
    pub rate: Option<f64>,
    /// The first part of the load, left out of the flatness rules.
    pub warmup: Duration,
    /// Directory of `soak.csv` and `soak.png`.
    pub out_dir: PathBuf,
}

impl Settings {
    /// From the command line (`soak [SECONDS]`) and the environment: `SOAK_SECS` (default
    /// 600), `SOAK_WORKERS` (16), `SOAK_RATE` (HTTP operations per second; unset: as
    /// fast as the server answers), `SOAK_STDIO` (`0`: no stdio server), `SOAK_OUT` (`docs/soak` of the workspace). The warm-up is a
    /// fifth of the run, at most 60 s.
    pub fn from_env() -> anyhow::Result<Self> {
        let secs = match std::env::args().nth(1) {
            Some(arg) => arg,
            None => std::env::var("SOAK_SECS").unwrap_or_else(|_| "600".to_owned()),
        };
        let secs: u64 = secs
            .parse()
            .with_context(|| format!("the duration must be whole seconds, not {secs:?}"))?;
        if secs < 10 {
            bail!("a soak run lasts at least 10 s");
        }
        let workers = match std::env::var("SOAK_WORKERS") {
            Ok(n) => n.parse().context("SOAK_WORKERS must be a number")?,
            Err(_) => 16,
        };
        let rate = match std::env::var("SOAK_RATE") {
            Ok(rate) => Some(rate.parse().context("SOAK_RATE must be a number")?),
            Err(_) => None,
        };
        let out_dir = match std::env::var_os("SOAK_OUT") {
            Some(dir) => PathBuf::from(dir),
            None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/soak"),
        };
        Ok(Self {
            duration: Duration::from_secs(secs),
            workers: workers.max(1),
            stdio: std::env::var("SOAK_STDIO").map_or(true, |v| v != "0"),
            rate: rate.filter(|&rate: &f64| rate > 0.0),
            warmup: Duration::from_secs((secs / 5).min(60)),
            out_dir,
        })
    }
}

/// The server process; killed if still running when dropped.
struct ServerProcess {
    child: Child,
    addr: SocketAddr,
}

impl ServerProcess {
    fn start(exe: &Path) -> anyhow::Result<Self> {
        let mut child = Command::new(exe)
            .arg("0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("cannot start {}", exe.display()))?;
        let stdout = child.stdout.take().context("no stdout of soak_server")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let addr = line
            .trim()
            .strip_prefix("listening on ")
            .and_then(|addr| addr.parse().ok());
        match addr {
            Some(addr) => Ok(Self { child, addr }),
            None => {
                let _ = child.kill();
                bail!("soak_server said {line:?} instead of its address")
            }
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes its stdin (asking it to stop) and waits up to 10 s for it to exit.
    fn stop(&mut self) -> anyhow::Result<std::process::ExitStatus> {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok(status);
            }
            if Instant::now() > deadline {
                self.child.kill()?;
                bail!("soak_server did not stop within 10 s of its stdin closing; killed");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Under `cargo run` (`CARGO` set), builds `soak_server` in this executable's profile first,
/// so that the server measured is the one of the working tree, not an older build.
fn build_server() -> anyhow::Result<()> {
    let Some(cargo) = std::env::var_os("CARGO") else {
        return Ok(());
    };
    let mut build = Command::new(cargo);
    build.args(["build", "-p", "mcp-benchmarks", "--bin", "soak_server"]);
    if !cfg!(debug_assertions) {
        build.arg("--release");
    }
    let status = build
        .status()
        .context("cannot run cargo to build soak_server")?;
    if !status.success() {
        bail!("building soak_server failed: {status}");
    }
    Ok(())
}

/// What the sampler reads: the processes and the counters of their loads.
struct Watched {
    http_pid: u32,
    http: Arc<Counters>,
    stdio_pid: Option<u32>,
    stdio: Arc<Counters>,
}

/// Runs the soak and prints its summary; `Ok(false)` when a flatness rule broke or an
/// operation failed.
pub fn run(settings: &Settings) -> anyhow::Result<bool> {
    std::fs::create_dir_all(&settings.out_dir)
        .with_context(|| format!("cannot create {}", settings.out_dir.display()))?;
    build_server()?;
    let exe = BinLocator::default().locate("soak_server")?;
    let mut server = ServerProcess::start(&exe)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let mut stdio_server = if settings.stdio {
        let _entered = runtime.enter();
        Some(StdioServer::spawn(&exe)?)
    } else {
        None
    };
    let watched = Arc::new(Watched {
        http_pid: server.pid(),
        http: Arc::new(Counters::default()),
        stdio_pid: stdio_server.as_ref().and_then(StdioServer::pid),
        stdio: Arc::new(Counters::default()),
    });
    println!(
        "soak: HTTP server pid {} at http://{}/mcp, {} workers{}; {} s (warm-up {} s)",
        watched.http_pid,
        server.addr,
        settings.workers,
        watched
            .stdio_pid
            .map_or(String::new(), |pid| format!("; stdio server pid {pid}")),
        settings.duration.as_secs(),
        settings.warmup.as_secs()
    );
    std::thread::sleep(Duration::from_millis(500));
    let before = Idle::read(&watched)?;

    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let sampler = {
        let watched = Arc::clone(&watched);
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || sample_every_second(&watched, started, &stop))
    };
    let deadline = started + settings.duration;
    let stdio_status = runtime.block_on(async {
        let http = load::run(
            server.addr,
            settings.workers,
            settings.rate,
            deadline,
            Arc::clone(&watched.http),
        );
        match &mut stdio_server {
            Some(stdio_server) => {
                let stdio = super::stdio::run(stdio_server, deadline, &watched.stdio);
                tokio::join!(http, stdio);
                Some(stdio_server.stop().await)
            }
            None => {
                http.await;
                None
            }
        }
    });
    let load_secs = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let samples = sampler
        .join()
        .map_err(|_| anyhow::anyhow!("the sampler thread panicked"))??;
    drop(runtime);

    // Idle: the clients' connections are closed; give the server a moment to drop them.
    std::thread::sleep(Duration::from_secs(2));
    let after = Idle::read(&watched)?;
    let status = server.stop()?;

    let csv = settings.out_dir.join("soak.csv");
    sample::write_csv(&csv, &samples)?;
    let png = settings.out_dir.join("soak.png");
    let title = format!(
        "soak_server under mixed load: {} HTTP workers{}, {} s",
        settings.workers,
        if settings.stdio { " + stdio" } else { "" },
        settings.duration.as_secs()
    );
    super::plot::draw(&png, &title, &samples, settings.warmup.as_secs_f64())?;

    let warmup_s = settings.warmup.as_secs_f64();
    let mut out = std::io::stdout().lock();
    writeln!(out, "\n## Soak summary\n")?;
    writeln!(
        out,
        "{load_secs:.0} s of load, {} HTTP workers{}, {} samples; HTTP server exited with {status}{}",
        settings.workers,
        if settings.stdio {
            " and one stdio client"
        } else {
            ""
        },
        samples.len(),
        match &stdio_status {
            Some(Ok(status)) => format!(", stdio server with {status}"),
            Some(Err(e)) => format!(", stdio server: {e:#}"),
            None => String::new(),
        }
    )?;
    writeln!(
        out,
        "\n| | idle before | start | after warm-up ({warmup_s:.0} s) | end | max | slope after warm-up | idle after |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|---|")?;
    let mut problems = Vec::new();
    let http = report_process(
        &mut out,
        "HTTP",
        &samples,
        warmup_s,
        (before.http_rss, before.http_fds),
        Some((after.http_rss, after.http_fds)),
        |s| (s.rss_kib, s.fds),
    )?;
    problems.extend(
        http.map(|(rss, fds)| {
            verdict::problems(
                &rss,
                &fds,
                before.http_fds,
                after.http_fds,
                watched.http.total_failed(),
            )
        })
        .unwrap_or_else(|| vec!["HTTP: no samples after the warm-up".to_owned()]),
    );
    if let Some(before_stdio) = before.stdio {
        // The stdio server exits once its input ends, so it has no idle state after the
        // load; its descriptors are judged on the samples alone.
        let stdio = report_process(
            &mut out,
            "stdio",
            &samples,
            warmup_s,
            before_stdio,
            after.stdio,
            |s| (s.stdio_rss_kib, s.stdio_fds),
        )?;
        let stdio_problems = stdio.map(|(rss, fds)| {
            verdict::problems(
                &rss,
                &fds,
                before_stdio.1,
                after.stdio.map_or(before_stdio.1, |(_, fds)| fds),
                watched.stdio.total_failed(),
            )
        });
        problems.extend(
            stdio_problems
                .unwrap_or_else(|| vec!["no samples after the warm-up".to_owned()])
                .into_iter()
                .map(|p| format!("stdio: {p}")),
        );
    }
    if let Some(Err(e)) = &stdio_status {
        problems.push(format!("stdio server: {e:#}"));
    }

    writeln!(
        out,
        "\n| operation | HTTP as expected | HTTP failed | stdio as expected | stdio failed |"
    )?;
    writeln!(out, "|---|---|---|---|---|")?;
    for kind in Kind::ALL {
        let stdio = if settings.stdio && super::stdio::STDIO_MIX.contains(&kind) {
            format!(
                "{} | {}",
                watched.stdio.ok(kind),
                watched.stdio.failed(kind)
            )
        } else {
            "– | –".to_owned()
        };
        writeln!(
            out,
            "| {} | {} | {} | {stdio} |",
            kind.name(),
            watched.http.ok(kind),
            watched.http.failed(kind)
        )?;
    }
    let requests = watched.http.requests();
    writeln!(
        out,
        "\n{requests} HTTP requests ({:.0}/s) on {} connections, {} failures; {} stdio lines ({:.0}/s), {} failures",
        requests as f64 / load_secs.max(1e-3),
        watched.http.connects(),
        watched.http.total_failed(),
        watched.stdio.requests(),
        watched.stdio.requests() as f64 / load_secs.max(1e-3),
        watched.stdio.total_failed()
    )?;
    for failure in watched.http.failure_messages() {
        writeln!(out, "- HTTP {failure}")?;
    }
    for failure in watched.stdio.failure_messages() {
        writeln!(out, "- stdio {failure}")?;
    }
    writeln!(out, "\nwrote {} and {}", csv.display(), png.display())?;
    if problems.is_empty() {
        writeln!(
            out,
            "\nFLAT: RSS within +{:.0}% and fds within +{} of their values after warm-up, fds back to their idle count, no failures",
            verdict::MAX_RSS_GROWTH * 100.0,
            verdict::FD_SLACK
        )?;
    } else {
        writeln!(out, "\nFAILED:")?;
        for problem in &problems {
            writeln!(out, "- {problem}")?;
        }
    }
    Ok(problems.is_empty())
}

/// Writes the RSS and fd rows of one process; returns their trends.
fn report_process(
    out: &mut impl std::io::Write,
    label: &str,
    samples: &[Sample],
    warmup_s: f64,
    (rss_before, fds_before): (u64, u64),
    after: Option<(u64, u64)>,
    value: impl Fn(&Sample) -> (u64, u64),
) -> anyhow::Result<Option<(Trend, Trend)>> {
    let rss = Trend::of(samples, warmup_s, |s| value(s).0 as f64);
    let fds = Trend::of(samples, warmup_s, |s| value(s).1 as f64);
    let (Some(rss), Some(fds)) = (rss, fds) else {
        return Ok(None);
    };
    let (rss_after, fds_after) = match after {
        Some((rss, fds)) => (rss.to_string(), fds.to_string()),
        None => ("(exited)".to_owned(), "(exited)".to_owned()),
    };
    writeln!(
        out,
        "| {label} RSS (KiB) | {rss_before} | {:.0} | {:.0} | {:.0} ({:+.1}%) | {:.0} | {:+.1} KiB/min | {rss_after} |",
        rss.start,
        rss.warm,
        rss.end,
        rss.growth() * 100.0,
        rss.max,
        rss.slope_per_min
    )?;
    writeln!(
        out,
        "| {label} open fds | {fds_before} | {:.0} | {:.1} | {:.1} | {:.0} | {:+.2} /min | {fds_after} |",
        fds.start, fds.warm, fds.end, fds.max, fds.slope_per_min
    )?;
    Ok(Some((rss, fds)))
}

/// RSS (KiB) and fds of the servers while no load runs.
struct Idle {
    http_rss: u64,
    http_fds: u64,
    stdio: Option<(u64, u64)>,
}

impl Idle {
    fn read(watched: &Watched) -> anyhow::Result<Self> {
        let (http_rss, _, http_fds) = sample::read_proc(watched.http_pid)?;
        let stdio = match watched.stdio_pid {
            // The stdio server exits once its input ends: after the load it may be gone.
            Some(pid) => sample::read_proc(pid).ok().map(|(rss, _, fds)| (rss, fds)),
            None => None,
        };
        Ok(Self {
            http_rss,
            http_fds,
            stdio,
        })
    }
}

/// Samples the watched processes once a second until `stop`; the times are counted from
/// `started`.
fn sample_every_second(
    watched: &Watched,
    started: Instant,
    stop: &AtomicBool,
) -> anyhow::Result<Vec<Sample>> {
    let mut samples = Vec::new();
    let mut next = started;
    while !stop.load(Ordering::Relaxed) {
        let (rss_kib, threads, fds) = sample::read_proc(watched.http_pid)?;
        let (stdio_rss_kib, stdio_threads, stdio_fds) = match watched.stdio_pid {
            Some(pid) => sample::read_proc(pid).unwrap_or_default(),
            None => (0, 0, 0),
        };
        samples.push(Sample {
            t: started.elapsed().as_secs_f64(),
            rss_kib,
            fds,
            threads,
            requests: watched.http.requests(),
            failures: watched.http.total_failed(),
            stdio_rss_kib,
            stdio_fds,
            stdio_threads,
            stdio_requests: watched.stdio.requests(),
            stdio_failures: watched.stdio.total_failed(),
        });
        next += Duration::from_secs(1);
        // Sleep in short steps, so the end of the load is noticed quickly.
        while Instant::now() < next && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    Ok(samples)
}
