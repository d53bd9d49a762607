//! Run-time inspection: the names a Python module binds only when it runs (astropy's units made
//! by `def_unit`, classes made in a loop, a compiled core without a stub), had by importing the
//! module in a sandbox, for the modules whose names the static reading left unknown.
//!
//! The sandbox is bubblewrap (`bwrap`, Debian's `bubblewrap`): the tool Flatpak runs untrusted
//! applications with, small, unprivileged where user namespaces are allowed, and it needs no
//! daemon (unlike Docker, which this kind of machine cannot run). Inside it the probe
//! (`extractors/python/inspect_probe.py`) sees a root built from read-only binds of the system
//! (`/usr`, `/lib`, the interpreter) and of the release, a private `/tmp` of bounded size, no
//! network (its own empty network namespace), its own process namespace, and, as root, the
//! unprivileged user `nobody`, so that the process limit holds (the kernel exempts root from
//! it). The probe sets memory, CPU-time, process and file-size limits before any package code
//! runs; refgraph holds a wall-clock budget per module and kills the whole sandbox (its process
//! namespace dies with bwrap) when one is spent, then goes on with the modules left.
//!
//! Installing a wheel with `pip --only-binary=:all:` runs no package code (it only unpacks), so
//! it happens outside the sandbox, with the network; a release with no wheel is not built.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::model::{
    Diagnostic, Ecosystem, PackageId, Param, ParamKind, ReleaseFacts, Symbol, SymbolKind,
};

/// The probe, kept as data beside the extractors' queries.
const PROBE: &str = include_str!("../extractors/python/inspect_probe.py");
const PREFIX: &str = "@@refgraph ";
/// A line longer than this from the probe is not read (a module of a million names).
const MAX_LINE: usize = 64 << 20;

/// Limits of one inspection.
#[derive(Debug, Clone)]
pub struct InspectOptions {
    /// The interpreter (`REFGRAPH_PYTHON`, else `python3` on the PATH).
    pub python: Option<PathBuf>,
    /// uv (`REFGRAPH_UV`, else `uv` on the PATH), which installs a registry release with the
    /// dependencies of its era; without it pip installs today's.
    pub uv: Option<PathBuf>,
    /// Wall-clock budget of one module's import and reading, in seconds.
    pub module_seconds: u64,
    /// Address space of each process, in bytes.
    pub memory_bytes: u64,
    /// CPU time of each process, in seconds.
    pub cpu_seconds: u64,
    /// Processes the sandbox's user may run at once.
    pub processes: u64,
    /// Largest file a process may write, in bytes.
    pub file_bytes: u64,
    /// Size of the sandbox's private `/tmp`, in bytes.
    pub tmp_bytes: u64,
    /// The PyPI packages whose releases are inspected (`config.toml`'s `[inspect] packages`);
    /// `None`: every Python release.
    pub only: Option<Vec<PackageId>>,
}

impl InspectOptions {
    /// Whether releases of `id` are inspected: Python ones, of the listed packages if any.
    pub fn covers(&self, id: &PackageId) -> bool {
        id.ecosystem == Ecosystem::Pypi && self.only.as_ref().is_none_or(|o| o.contains(id))
    }
}

impl Default for InspectOptions {
    fn default() -> Self {
        InspectOptions {
            python: std::env::var_os("REFGRAPH_PYTHON").map(PathBuf::from),
            uv: std::env::var_os("REFGRAPH_UV").map(PathBuf::from),
            module_seconds: 60,
            memory_bytes: 4 << 30,
            cpu_seconds: 300,
            processes: 64,
            file_bytes: 64 << 20,
            tmp_bytes: 256 << 20,
            only: None,
        }
    }
}

/// What is imported: a source tree as it is, a folder a release is already installed into, a
/// wheel file, or a PyPI release (`name`, `version`; pip picks the release's wheel for this
/// interpreter and platform) to install with its dependencies into a throwaway folder.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    Tree(&'a Path),
    Installed(&'a Path),
    Wheel(&'a Path),
    /// Name, version, and the day the release was uploaded, when known: its dependencies are
    /// then those of its era (uv's `--exclude-newer`, two days later), not today's, which
    /// may have dropped what it uses (numpy 2 and astropy 6.1).
    Registry(&'a str, &'a str, Option<&'a str>),
}

#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    #[error(
        "the sandbox cannot start: {0} (install bubblewrap: apt-get install bubblewrap; it \
         needs user namespaces, or root)"
    )]
    NoSandbox(String),
    #[error("no Python interpreter to inspect with: {0} (set REFGRAPH_PYTHON to one)")]
    NoPython(String),
    #[error("the release cannot be installed for inspection: {0}")]
    Install(String),
    #[error("inspection failed: {0}")]
    Io(#[from] std::io::Error),
}

/// The interpreter the modules were imported with.
#[derive(Debug, Clone, serde::Deserialize)]
struct Interpreter {
    executable: PathBuf,
    base_prefix: PathBuf,
    version: String,
    implementation: String,
    platform: String,
}

/// One name a module bound when it was imported.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct RuntimeName {
    /// `id()` of the object in the run that imported it: one object bound under two names.
    pub id: Option<u64>,
    pub kind: String,
    /// `module.qualname` of a class or function; a module's own name.
    pub home: Option<String>,
    /// A value's type.
    #[serde(rename = "type")]
    pub type_: Option<String>,
    pub signature: Option<String>,
    pub params: Option<Vec<RuntimeParam>>,
    pub returns: Option<String>,
    pub doc: Option<String>,
    pub file: Option<String>,
    pub line: Option<usize>,
}

#[derive(Debug, Clone, serde::Deserialize)]
pub struct RuntimeParam {
    pub name: String,
    pub kind: String,
    pub annotation: Option<String>,
    pub default: Option<String>,
}

/// What became of one module.
#[derive(Debug, Clone)]
pub enum ModuleOutcome {
    Imported {
        names: BTreeMap<String, RuntimeName>,
        /// Which run of the probe imported it (ids are compared within a run only).
        run: usize,
    },
    Failed(String),
}

/// The outcome of one inspection.
#[derive(Debug, Clone)]
pub struct Inspection {
    /// `CPython 3.11.7 (linux-x86_64)`.
    pub interpreter: String,
    /// The folder the modules were imported from; files under it are named relative to it.
    pub root: PathBuf,
    pub modules: BTreeMap<String, ModuleOutcome>,
    /// Seconds spent installing, and importing.
    pub install_seconds: f64,
    pub import_seconds: f64,
}

/// Whether inspection can run here: bwrap and an interpreter. The error says what to install.
pub fn available(opts: &InspectOptions) -> Result<(), InspectError> {
    interpreter(opts)?;
    sandbox_check()
}

/// Imports `modules` of `subject` in the sandbox, each within the options' limits, and says
/// what each binds, or why it could not be imported.
pub fn inspect(
    subject: Subject<'_>,
    modules: &[String],
    opts: &InspectOptions,
) -> Result<Inspection, InspectError> {
    let interp = interpreter(opts)?;
    sandbox_check()?;
    let work = tempfile::Builder::new()
        .prefix("refgraph-inspect-")
        .tempdir()?;
    open_to_all(work.path())?;
    let start = Instant::now();
    let root = match subject {
        Subject::Tree(p) | Subject::Installed(p) => p.canonicalize()?,
        Subject::Wheel(wheel) => {
            let name = wheel.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !name.ends_with(".whl") {
                return Err(InspectError::Install(format!(
                    "{} is not a wheel; only a wheel is installed, since building an sdist runs \
                     its code outside the sandbox",
                    wheel.display()
                )));
            }
            let site = work.path().join("site");
            install(&interp, wheel.as_os_str(), &site)?;
            site
        }
        Subject::Registry(name, version, uploaded) => {
            let site = work.path().join("site");
            let spec = format!("{name}=={version}");
            match (uploaded.and_then(era), uv(opts)) {
                (Some(day), Some(uv)) => install_with_uv(&interp, &uv, &spec, &day, &site)?,
                _ => install(&interp, spec.as_ref(), &site)?,
            }
            site
        }
    };
    let install_seconds = start.elapsed().as_secs_f64();
    let probe = work.path().join("inspect_probe.py");
    std::fs::write(&probe, PROBE)?;
    open_to_all(&probe)?;
    let mut outcomes = BTreeMap::new();
    let mut left: Vec<String> = modules.to_vec();
    let mut run = 0;
    while !left.is_empty() {
        run += 1;
        let config = work.path().join(format!("config-{run}.json"));
        let json = serde_json::json!({
            "paths": [root.to_string_lossy()],
            "modules": left,
            "limits": {
                "memory_bytes": opts.memory_bytes,
                "cpu_seconds": opts.cpu_seconds,
                "processes": opts.processes,
                "file_bytes": opts.file_bytes,
            },
        });
        std::fs::write(&config, json.to_string())?;
        open_to_all(&config)?;
        let before = outcomes.len();
        run_probe(&interp, &probe, &config, &root, opts, run, &mut outcomes)?;
        // Every module the run began but did not finish has its outcome; go on after it.
        left.retain(|m| !outcomes.contains_key(m));
        if outcomes.len() == before {
            // The probe ended before it began a module: nothing more will come of a rerun.
            for m in left.drain(..) {
                let why = "the probe ended before it reached this module".to_string();
                outcomes.insert(m, ModuleOutcome::Failed(why));
            }
        }
    }
    Ok(Inspection {
        interpreter: format!(
            "{} {} ({})",
            interp.implementation, interp.version, interp.platform
        ),
        root,
        modules: outcomes,
        install_seconds,
        import_seconds: start.elapsed().as_secs_f64() - install_seconds,
    })
}

/// Makes `path` readable (and a folder enterable) by the sandbox's unprivileged user.
fn open_to_all(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = if path.is_dir() { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

fn interpreter(opts: &InspectOptions) -> Result<Interpreter, InspectError> {
    let python = opts
        .python
        .clone()
        .unwrap_or_else(|| PathBuf::from("python3"));
    let script = "import json, platform, sys; print(json.dumps({'executable': \
                  __import__('os').path.realpath(sys.executable), 'base_prefix': sys.base_prefix, \
                  'version': platform.python_version(), 'implementation': \
                  platform.python_implementation(), 'platform': sys.platform + '-' + \
                  platform.machine()}))";
    let out = Command::new(&python)
        .args(["-I", "-S", "-c", script])
        .output()
        .map_err(|e| InspectError::NoPython(format!("{}: {e}", python.display())))?;
    if !out.status.success() {
        return Err(InspectError::NoPython(format!(
            "{} exited with {}: {}",
            python.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| InspectError::NoPython(e.to_string()))
}

fn sandbox_check() -> Result<(), InspectError> {
    let out = Command::new("bwrap")
        .args(sandbox_args(&[], 1 << 20))
        .arg("true")
        .output();
    match out {
        Err(e) => Err(InspectError::NoSandbox(format!("bwrap: {e}"))),
        Ok(o) if !o.status.success() => Err(InspectError::NoSandbox(
            String::from_utf8_lossy(&o.stderr).trim().to_string(),
        )),
        Ok(_) => Ok(()),
    }
}

/// Whether this process runs as root (the sandbox then drops to `nobody`).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|e| e == "0"))
        })
        .unwrap_or(false)
}

/// bwrap's arguments up to the command: the read-only system, `binds` read-only at their own
/// paths, a private `/tmp`, and no network, IPC, UTS or process namespace shared.
fn sandbox_args(binds: &[&Path], tmp_bytes: u64) -> Vec<String> {
    let root = is_root();
    let mut a: Vec<String> = Vec::new();
    let mut push = |items: &[&str]| a.extend(items.iter().map(|s| s.to_string()));
    if root {
        // No user namespace: as root it would map to root, whom the process limit exempts.
        push(&[
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-uts",
            "--unshare-cgroup-try",
        ]);
    } else {
        push(&["--unshare-all"]);
    }
    push(&[
        "--die-with-parent",
        "--new-session",
        "--ro-bind",
        "/usr",
        "/usr",
    ]);
    for dir in [
        "/lib",
        "/lib64",
        "/bin",
        "/sbin",
        "/etc/ld.so.cache",
        "/etc/localtime",
    ] {
        push(&["--ro-bind-try", dir, dir]);
    }
    push(&["--dev", "/dev", "--proc", "/proc"]);
    a.push("--size".into());
    a.push(tmp_bytes.to_string());
    a.push("--tmpfs".into());
    a.push("/tmp".into());
    // The folders above each bind, enterable by the sandbox's user (bwrap makes them 0700).
    let mut made: BTreeSet<PathBuf> = BTreeSet::new();
    for b in binds {
        let mut above: Vec<&Path> = b.ancestors().skip(1).collect();
        above.reverse();
        for dir in above {
            if dir.parent().is_none() || dir.starts_with("/usr") || dir == Path::new("/tmp") {
                continue;
            }
            if made.insert(dir.to_path_buf()) {
                let d = dir.to_string_lossy().to_string();
                a.extend([
                    "--perms".to_string(),
                    "0755".to_string(),
                    "--dir".to_string(),
                    d,
                ]);
            }
        }
    }
    for b in binds {
        let p = b.to_string_lossy().to_string();
        a.extend(["--ro-bind".to_string(), p.clone(), p]);
    }
    a.extend(
        [
            "--clearenv",
            "--setenv",
            "HOME",
            "/tmp",
            "--setenv",
            "LANG",
            "C.UTF-8",
        ]
        .map(String::from),
    );
    a.push("--".into());
    if root {
        a.extend(
            [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "--no-new-privs",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--",
            ]
            .map(String::from),
        );
    }
    a
}

/// Installs `what` (a wheel file or `name==version`) and its dependencies into `site`, wheels
/// only: building an sdist would run its code outside the sandbox.
fn install(interp: &Interpreter, what: &std::ffi::OsStr, site: &Path) -> Result<(), InspectError> {
    let name = what.to_string_lossy();
    let out = Command::new(&interp.executable)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-input",
            "--disable-pip-version-check",
            "--no-compile",
            "--only-binary=:all:",
            "--target",
        ])
        .arg(site)
        .arg(what)
        .env("PIP_NO_WARN_SCRIPT_LOCATION", "1")
        .output()
        .map_err(|e| InspectError::Install(format!("pip: {e}")))?;
    installed(&out, &format!("pip install of {name}"), interp, site)
}

/// The outcome of an installer's run: its last lines of stderr when it failed, else `site`
/// made readable by the sandbox's user.
fn installed(
    out: &std::process::Output,
    what: &str,
    interp: &Interpreter,
    site: &Path,
) -> Result<(), InspectError> {
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(6).collect();
        return Err(InspectError::Install(format!(
            "{what} for {} {} failed: {}",
            interp.implementation,
            interp.version,
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        )));
    }
    for entry in walk(site) {
        open_to_all(&entry)?;
    }
    open_to_all(site)?;
    Ok(())
}

/// Two days after `uploaded` (`2024-05-03`), the cut-off of the release's dependencies.
fn era(uploaded: &str) -> Option<String> {
    let mut parts = uploaded.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, d) = (parts.next()??, parts.next()??, parts.next()??);
    // Days from the civil date and back (Howard Hinnant's algorithms): no date crate needed.
    let (yy, mm) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * mm + 2) / 5 + d - 1;
    let days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy + 2;
    let era = days.div_euclid(146097);
    let doe = days - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    Some(format!("{y:04}-{m:02}-{d:02}"))
}

/// uv, when it is there (`REFGRAPH_UV`, else `uv` on the PATH).
fn uv(opts: &InspectOptions) -> Option<PathBuf> {
    let uv = opts.uv.clone().unwrap_or_else(|| PathBuf::from("uv"));
    Command::new(&uv)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| uv)
}

/// [`install`] with uv, every package at its newest version uploaded before `day`.
fn install_with_uv(
    interp: &Interpreter,
    uv: &Path,
    spec: &str,
    day: &str,
    site: &Path,
) -> Result<(), InspectError> {
    let out = Command::new(uv)
        .args([
            "pip",
            "install",
            "--quiet",
            "--only-binary",
            ":all:",
            "--python",
        ])
        .arg(&interp.executable)
        .arg("--target")
        .arg(site)
        .args(["--exclude-newer", day, spec])
        .output()
        .map_err(|e| InspectError::Install(format!("uv: {e}")))?;
    let what = format!("uv pip install of {spec} (dependencies as of {day})");
    installed(&out, &what, interp, site)
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p.clone());
            }
            out.push(p);
        }
    }
    out
}

enum Line {
    Said(serde_json::Value),
    End,
}

/// One run of the probe over the modules in `config`. Records an outcome for each module it
/// finished, and for the one it was in when the process ended or its budget was spent.
fn run_probe(
    interp: &Interpreter,
    probe: &Path,
    config: &Path,
    root: &Path,
    opts: &InspectOptions,
    run: usize,
    outcomes: &mut BTreeMap<String, ModuleOutcome>,
) -> Result<(), InspectError> {
    let work = probe.parent().unwrap_or(Path::new("/"));
    let binds = [work, root, interp.base_prefix.as_path()];
    let mut cmd = Command::new("bwrap");
    cmd.args(sandbox_args(&binds, opts.tmp_bytes))
        .arg(&interp.executable)
        .args(["-I", "-S", "-B"])
        .arg(probe)
        .arg(config)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| InspectError::NoSandbox(format!("bwrap: {e}")))?;
    let stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    // The last of what package code printed, to say why an import ended the process.
    let err_tail = std::thread::spawn(move || {
        let mut tail: Vec<u8> = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            tail.extend_from_slice(&buf[..n]);
            if tail.len() > 16384 {
                tail.drain(..tail.len() - 8192);
            }
        }
        String::from_utf8_lossy(&tail).to_string()
    });
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader
                .by_ref()
                .take(MAX_LINE as u64)
                .read_until(b'\n', &mut line)
            {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&line);
                    if let Some(json) = text.trim_end().strip_prefix(PREFIX)
                        && let Ok(v) = serde_json::from_str(json)
                        && tx.send(Line::Said(v)).is_err()
                    {
                        return;
                    }
                }
            }
        }
        let _ = tx.send(Line::End);
    });
    let budget = Duration::from_secs(opts.module_seconds);
    let mut current: Option<String> = None;
    let mut deadline = Instant::now() + budget;
    let mut said_anything = false;
    let timed_out = loop {
        let wait = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(wait) {
            Ok(Line::Said(v)) => {
                said_anything = true;
                if let Some(m) = v.get("begin").and_then(|m| m.as_str()) {
                    current = Some(m.to_string());
                    deadline = Instant::now() + budget;
                } else if let Some(m) = v.get("done").and_then(|m| m.as_str()) {
                    // Only the module the probe is in: package code cannot speak for others.
                    if current.as_deref() == Some(m) {
                        outcomes.insert(m.to_string(), outcome_of(&v, run));
                        current = None;
                        deadline = Instant::now() + budget;
                    }
                }
            }
            Ok(Line::End) | Err(mpsc::RecvTimeoutError::Disconnected) => break false,
            Err(mpsc::RecvTimeoutError::Timeout) => break true,
        }
    };
    // The whole sandbox goes: its process namespace dies with bwrap.
    let _ = child.kill();
    let status = child.wait()?;
    let tail = err_tail.join().unwrap_or_default();
    let last_line = tail
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string();
    if let Some(m) = current {
        let why = if timed_out {
            format!(
                "its import did not finish within {} s; the sandbox was killed",
                opts.module_seconds
            )
        } else {
            use std::os::unix::process::ExitStatusExt;
            // bwrap's own process passes on the probe's death by a signal as 128 + signal.
            let signal = status
                .signal()
                .or_else(|| status.code().filter(|c| *c > 128).map(|c| c - 128));
            let how = match signal {
                Some(9) => "was killed (SIGKILL)".to_string(),
                Some(24) => "ran out of CPU time (SIGXCPU)".to_string(),
                Some(s) => format!("was killed by signal {s}"),
                None => format!("exited with {status}"),
            };
            format!("its import ended the process, which {how}: {last_line}")
        };
        outcomes.insert(m, ModuleOutcome::Failed(why));
    } else if !said_anything {
        return Err(InspectError::NoSandbox(format!(
            "the probe did not start ({status}): {last_line}"
        )));
    }
    Ok(())
}

fn outcome_of(v: &serde_json::Value, run: usize) -> ModuleOutcome {
    if v.get("ok").and_then(|o| o.as_bool()) != Some(true) {
        let error = v
            .get("error")
            .and_then(|e| e.as_str())
            .unwrap_or("import failed");
        return ModuleOutcome::Failed(error.to_string());
    }
    let names = v
        .get("names")
        .and_then(|n| serde_json::from_value(n.clone()).ok())
        .unwrap_or_default();
    ModuleOutcome::Imported { names, run }
}

/// What [`merge`] did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct MergeSummary {
    pub interpreter: String,
    pub modules_imported: usize,
    /// Modules that could not be imported, and why.
    pub modules_failed: Vec<(String, String)>,
    /// Names only the run time binds, now facts with provenance `runtime`.
    pub names_added: usize,
    /// Names read from the source that the import did not bind (diagnostics).
    pub static_not_bound: usize,
    pub install_seconds: f64,
    pub import_seconds: f64,
}

/// Fills the names the static reading left unknown with what the import found, each with
/// provenance `runtime` (interpreter and platform). Static facts stay as they are; a static
/// name the import did not bind is a diagnostic, never removed. One object bound under several
/// names (`unitkit.km` and `unitkit.si.km`) is one symbol, named by its shortest path, with the
/// others as aliases; a name bound to a symbol the source already shows reaches that symbol.
pub fn merge(facts: &mut ReleaseFacts, inspection: &Inspection) -> MergeSummary {
    let interp = &inspection.interpreter;
    let mut known: BTreeMap<String, String> = BTreeMap::new();
    for s in &facts.symbols {
        known.insert(s.qualified_name.clone(), s.qualified_name.clone());
        for a in &s.aliases {
            known.insert(a.clone(), s.qualified_name.clone());
        }
    }
    for (path, canonical) in &facts.reachable {
        known.insert(path.clone(), canonical.clone());
    }
    let mut bound: BTreeSet<String> = BTreeSet::new();
    for (module, names) in &facts.bound_names {
        bound.extend(names.iter().map(|n| format!("{module}.{n}")));
    }
    let module_files: BTreeMap<String, String> = facts
        .symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Module)
        .map(|s| (s.qualified_name.clone(), s.file.clone()))
        .collect();
    let top = module_files
        .keys()
        .next()
        .map(|m| m.split('.').next().unwrap_or("").to_string())
        .unwrap_or_default();
    let inside = |name: &str| name == top || name.starts_with(&format!("{top}."));
    let mut summary = MergeSummary {
        interpreter: interp.clone(),
        install_seconds: inspection.install_seconds,
        import_seconds: inspection.import_seconds,
        ..Default::default()
    };
    // The new names, grouped by the object they are bound to.
    let mut groups: BTreeMap<String, Vec<(String, &str, &RuntimeName)>> = BTreeMap::new();
    for (module, outcome) in &inspection.modules {
        let (names, run) = match outcome {
            ModuleOutcome::Failed(why) => {
                summary.modules_failed.push((module.clone(), why.clone()));
                facts.diagnostics.push(Diagnostic {
                    file: module_files.get(module).cloned().unwrap_or_default(),
                    line: 0,
                    message: format!(
                        "run-time inspection: {module} could not be imported in the sandbox on \
                         {interp}: {why}"
                    ),
                });
                continue;
            }
            ModuleOutcome::Imported { names, run, .. } => (names, run),
        };
        summary.modules_imported += 1;
        let mut found_here = 0;
        for (n, info) in names {
            let path = format!("{module}.{n}");
            if known.contains_key(&path) || bound.contains(&path) {
                continue;
            }
            // A module of another package bound here (`np`) is no API of this release.
            if info.kind == "module" && !info.home.as_deref().is_some_and(inside) {
                continue;
            }
            let key = match (&info.home, info.id) {
                (Some(home), _) if info.kind != "value" => format!("home {home}"),
                (_, Some(id)) => format!("id {run} {id}"),
                _ => format!("path {path}"),
            };
            groups
                .entry(key)
                .or_default()
                .push((path, module.as_str(), info));
            found_here += 1;
        }
        summary.names_added += found_here;
        // Static names the import did not bind: said, not dropped.
        let prefix = format!("{module}.");
        let missing: Vec<&str> = facts
            .symbols
            .iter()
            .filter(|s| s.parent.as_deref() == Some(module.as_str()))
            // A submodule is bound only once something imports it.
            .filter(|s| s.kind != SymbolKind::Module)
            .filter_map(|s| s.qualified_name.strip_prefix(&prefix))
            .filter(|n| !n.contains('.') && !n.starts_with('_') && !names.contains_key(*n))
            .collect();
        if !missing.is_empty() {
            summary.static_not_bound += missing.len();
            let shown: Vec<&str> = missing.iter().take(10).copied().collect();
            let more = missing.len() - shown.len();
            facts.diagnostics.push(Diagnostic {
                file: module_files.get(module).cloned().unwrap_or_default(),
                line: 0,
                message: format!(
                    "run-time inspection: {} name(s) read from the source are not bound when \
                     {module} is imported on {interp}: {}{}; the static facts are kept",
                    missing.len(),
                    shown.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                ),
            });
        }
        // The reason stays, and says what is now known.
        for (m, reason) in facts.unknown_members.iter_mut() {
            if m == module {
                reason.push_str(&format!(
                    "; imported on {interp}, it bound {found_here} name(s) the source does not \
                     show, now answered with provenance runtime; a name it did not bind may \
                     still be bound on another interpreter or platform"
                ));
            }
        }
    }
    let mut runtime_bound: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (_, mut group) in groups {
        // Shortest path first: fewest dots, then fewest characters.
        group.sort_by(|a, b| {
            let dots = |p: &str| p.matches('.').count();
            (dots(&a.0), a.0.len(), &a.0).cmp(&(dots(&b.0), b.0.len(), &b.0))
        });
        let home = group[0].2.home.clone();
        if let Some(canonical) = home.as_ref().and_then(|h| known.get(h)) {
            for (path, module, _) in &group {
                facts.reachable.push((path.clone(), canonical.clone()));
                let name = path.rsplit('.').next().unwrap_or(path).to_string();
                runtime_bound
                    .entry(module.to_string())
                    .or_default()
                    .push(name);
            }
            continue;
        }
        let (path, module, info) = &group[0];
        let mut symbol = runtime_symbol(path, module, info, inspection, &module_files);
        symbol.aliases = group[1..].iter().map(|(p, _, _)| p.clone()).collect();
        symbol.provenance = Some(format!(
            "runtime: bound when {module} is imported on {interp}"
        ));
        facts.symbols.push(symbol);
    }
    for (module, names) in runtime_bound {
        let provenance = format!("runtime: bound when {module} is imported on {interp}");
        facts.runtime_bound.push((module, names, provenance));
    }
    summary
}

/// The symbol a name found at run time becomes (provenance is set by the caller).
fn runtime_symbol(
    path: &str,
    module: &str,
    info: &RuntimeName,
    inspection: &Inspection,
    module_files: &BTreeMap<String, String>,
) -> Symbol {
    let kind = match info.kind.as_str() {
        "class" => SymbolKind::Class,
        "function" => SymbolKind::Function,
        "module" => SymbolKind::Module,
        _ => SymbolKind::Attribute,
    };
    let relative = |file: &str| -> Option<String> {
        Path::new(file)
            .strip_prefix(&inspection.root)
            .ok()
            .map(|p| p.to_string_lossy().replace('\\', "/"))
    };
    let (file, line) = match info.file.as_deref().and_then(relative) {
        Some(f) => (f, info.line.unwrap_or(0)),
        None => (module_files.get(module).cloned().unwrap_or_default(), 0),
    };
    let doc = match kind {
        SymbolKind::Attribute => info
            .type_
            .as_ref()
            .map(|t| format!("A value of type {t}, bound when {module} is imported.")),
        _ => info.doc.clone(),
    };
    Symbol {
        qualified_name: path.to_string(),
        defined_in: info.home.clone().unwrap_or_else(|| path.to_string()),
        kind,
        has_signature: info.params.is_some() && kind != SymbolKind::Attribute,
        params: info
            .params
            .iter()
            .flatten()
            .filter(|p| !(p.name == "self" || p.name == "cls"))
            .map(param_of)
            .collect(),
        returns: info.returns.clone(),
        doc,
        parent: path.rsplit_once('.').map(|(p, _)| p.to_string()),
        file,
        line,
        ..Default::default()
    }
}

fn param_of(p: &RuntimeParam) -> Param {
    let kind = match p.kind.as_str() {
        "positional_only" => ParamKind::PositionalOnly,
        "var_positional" => ParamKind::VarPositional,
        "keyword_only" => ParamKind::KeywordOnly,
        "var_keyword" => ParamKind::VarKeyword,
        _ => ParamKind::PositionalOrKeyword,
    };
    Param {
        name: p.name.clone(),
        kind,
        annotation: p.annotation.clone(),
        default: p.default.clone(),
        optional: false,
        description: None,
    }
}

/// The modules whose names the static reading could not all tell, as `facts` records them
/// (classes whose members it cannot all tell are left out: importing names a module).
pub fn unknown_modules(facts: &ReleaseFacts) -> Vec<String> {
    let modules: BTreeSet<&str> = facts
        .symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Module)
        .map(|s| s.qualified_name.as_str())
        .collect();
    let mut out: Vec<String> = facts
        .unknown_members
        .iter()
        .filter(|(m, _)| modules.contains(m.as_str()))
        .map(|(m, _)| m.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_era_of_a_release_is_two_days_after_its_upload() {
        assert_eq!(era("2024-05-03").as_deref(), Some("2024-05-05"));
        assert_eq!(era("2024-12-30").as_deref(), Some("2025-01-01"));
        assert_eq!(era("2024-02-28").as_deref(), Some("2024-03-01"));
        assert_eq!(era("2023-02-28").as_deref(), Some("2023-03-02"));
        assert_eq!(era("not a date"), None);
    }
}
