//! Where the daemon's connections run: a thread per core, each with a single-threaded runtime
//! of its own, and a connection stays on one thread for its life.
//!
//! On the multi-threaded runtime, every request paid a wake-up of the other worker thread:
//! hyper's request body is a channel whose sender is the connection task itself, so when the
//! handler reads the body the task wakes itself from inside its own poll, and tokio answers a
//! task notified while running by re-queuing it and waking a sleeping worker (a futex or an
//! eventfd write, on a VM a trip through the hypervisor), which then often steals the task to
//! the other core. On a single-threaded runtime the same self-wake only puts the task back in
//! its thread's queue. Connections are spread over the lanes in turn; one that is accepted
//! moves to its lane's reactor once (`into_std` here, `from_std` there), so its requests never
//! cross a thread.
//!
//! Everything else (the accept loops, reloads, webhooks, the audit) stays on the main runtime.
//! A decision that waits on a command or HTTP hook waits on its lane's runtime without holding
//! the thread, as it did on the main one.

use std::sync::atomic::{AtomicUsize, Ordering};

/// A connection accepted on the main runtime that can move to a lane.
pub(super) trait Movable: Sized {
    /// The stream outside any runtime.
    type Std: Send + 'static;
    /// Takes the stream out of this runtime's reactor.
    fn into_std(self) -> std::io::Result<Self::Std>;
    /// Registers the stream with the current runtime's reactor.
    fn from_std(std: Self::Std) -> std::io::Result<Self>;
}

impl Movable for tokio::net::TcpStream {
    type Std = std::net::TcpStream;
    fn into_std(self) -> std::io::Result<Self::Std> {
        tokio::net::TcpStream::into_std(self)
    }
    fn from_std(std: Self::Std) -> std::io::Result<Self> {
        tokio::net::TcpStream::from_std(std)
    }
}

impl Movable for tokio::net::UnixStream {
    type Std = std::os::unix::net::UnixStream;
    fn into_std(self) -> std::io::Result<Self::Std> {
        tokio::net::UnixStream::into_std(self)
    }
    fn from_std(std: Self::Std) -> std::io::Result<Self> {
        tokio::net::UnixStream::from_std(std)
    }
}

/// Work for a lane: called on the lane's thread, inside its runtime, where it spawns.
pub(super) type Job = Box<dyn FnOnce() + Send>;

/// The lanes; dropping them lets their threads end once the tasks they run are done with.
pub(super) struct Lanes {
    lanes: Vec<tokio::sync::mpsc::UnboundedSender<Job>>,
    next: AtomicUsize,
}

impl Lanes {
    /// One lane per core.
    ///
    /// # Errors
    ///
    /// The I/O error of starting a thread or its runtime.
    pub(super) fn start() -> std::io::Result<Lanes> {
        let count = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let mut lanes = Vec::with_capacity(count);
        for n in 0..count {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let (send, mut jobs) = tokio::sync::mpsc::unbounded_channel::<Job>();
            std::thread::Builder::new()
                .name(format!("hooks-serve-lane-{n}"))
                .spawn(move || {
                    runtime.block_on(async move {
                        while let Some(job) = jobs.recv().await {
                            job();
                        }
                    });
                })?;
            lanes.push(send);
        }
        Ok(Lanes {
            lanes,
            next: AtomicUsize::new(0),
        })
    }

    /// Runs `job` on the next lane (in turn). A lane that is gone (its thread ended) hands it
    /// back to run on the caller's runtime, so a connection is never dropped for it.
    pub(super) fn run(&self, job: Job) {
        let at = self.next.fetch_add(1, Ordering::Relaxed) % self.lanes.len();
        if let Err(returned) = self.lanes[at].send(job) {
            tracing::warn!("connection lane {at} is gone; serving on the main runtime");
            (returned.0)();
        }
    }
}
