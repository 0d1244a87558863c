//! The errors of building, flushing and shutting down a [`Telemetry`](super::Telemetry).

use opentelemetry_otlp::ExporterBuildError;
use opentelemetry_sdk::error::OTelSdkError;

/// An error building a [`Telemetry`](super::Telemetry): an OTLP exporter could not be
/// configured (an invalid endpoint, in the builder or in an `OTEL_EXPORTER_OTLP_*`
/// variable, or an HTTP client that cannot be built).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The OTLP span exporter.
    #[error("cannot build the OTLP span exporter for hook runs: {0}")]
    SpanExporter(ExporterBuildError),
    /// The OTLP metric exporter.
    #[error("cannot build the OTLP metric exporter for hook runs: {0}")]
    MetricExporter(ExporterBuildError),
}

/// An error flushing or shutting down a [`Telemetry`](super::Telemetry): what the tracer
/// provider, the meter provider or both reported (an export the receiver refused or that timed
/// out, a provider already shut down, …). The other signal was still flushed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FlushError {
    /// Spans could not be flushed; metrics were.
    #[error("hook spans: {0}")]
    Traces(OTelSdkError),
    /// Metrics could not be flushed; spans were.
    #[error("hook metrics: {0}")]
    Metrics(OTelSdkError),
    /// Neither could be flushed.
    #[error("hook spans: {traces}; hook metrics: {metrics}")]
    Both {
        /// What the tracer provider reported.
        traces: OTelSdkError,
        /// What the meter provider reported.
        metrics: OTelSdkError,
    },
}

impl FlushError {
    /// Combine the results of the two providers.
    pub(super) fn check(
        traces: Result<(), OTelSdkError>,
        metrics: Result<(), OTelSdkError>,
    ) -> Result<(), FlushError> {
        match (traces, metrics) {
            (Ok(()), Ok(())) => Ok(()),
            (Err(traces), Ok(())) => Err(FlushError::Traces(traces)),
            (Ok(()), Err(metrics)) => Err(FlushError::Metrics(metrics)),
            (Err(traces), Err(metrics)) => Err(FlushError::Both { traces, metrics }),
        }
    }

    /// What the tracer provider reported, if it failed.
    pub fn traces(&self) -> Option<&OTelSdkError> {
        match self {
            FlushError::Traces(e) | FlushError::Both { traces: e, .. } => Some(e),
            FlushError::Metrics(_) => None,
        }
    }

    /// What the meter provider reported, if it failed.
    pub fn metrics(&self) -> Option<&OTelSdkError> {
        match self {
            FlushError::Metrics(e) | FlushError::Both { metrics: e, .. } => Some(e),
            FlushError::Traces(_) => None,
        }
    }
}
