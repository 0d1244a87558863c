//! Queue drains: `pre_queue_drain` and `post_queue_drain` around draining pending work.

use std::time::Instant;

use crate::context::{PostQueueDrain, PreQueueDrain};
use crate::points;

use super::{Session, log_closed, millis};

impl Session {
    /// A queue of pending work (queued prompts, inbox messages) is about to be drained:
    /// `pre_queue_drain`. Drain it through this session, then hand the returned
    /// [`QueueDrain`] to [`finish_queue_drain`](Session::finish_queue_drain).
    pub async fn start_queue_drain(&mut self, queue: &str, pending: usize) -> QueueDrain {
        let mut ctx = PreQueueDrain::new(self.meta.next(), queue, pending);
        log_closed(
            &self
                .hooks
                .dispatch_async::<points::pre_queue_drain::Point>(&mut ctx)
                .await,
        );
        QueueDrain {
            queue: queue.to_owned(),
            started: Instant::now(),
        }
    }

    /// The queue was drained: `post_queue_drain` with the count and the duration.
    pub async fn finish_queue_drain(
        &mut self,
        drain: QueueDrain,
        drained: usize,
    ) -> PostQueueDrain {
        let duration = millis(drain.started.elapsed());
        let mut ctx = PostQueueDrain::new(self.meta.next(), drain.queue, drained, duration);
        log_closed(
            &self
                .hooks
                .dispatch_async::<points::post_queue_drain::Point>(&mut ctx)
                .await,
        );
        ctx
    }
}

/// A queue drain in progress, from [`Session::start_queue_drain`].
#[derive(Debug)]
pub struct QueueDrain {
    queue: String,
    started: Instant,
}
