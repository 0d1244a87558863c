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
    SpanExporter(#[source] ExporterBuildError),
    /// The OTLP metric exporter.
    #[error("cannot build the OTLP metric exporter for hook runs: {0}")]
    MetricExporter(#[source] ExporterBuildError),
}

/// An error flushing or shutting down a [`Telemetry`](super::Telemetry): what the tracer
/// provider, the meter provider or both reported (an export the receiver refused or that timed
/// out, a provider already shut down, …). The other signal was still flushed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FlushError {
    /// Spans could not be flushed; metrics were.
    #[error("hook spans: {0}")]
    Traces(#[source] OTelSdkError),
    /// Metrics could not be flushed; spans were.
    #[error("hook metrics: {0}")]
    Metrics(#[source] OTelSdkError),
    /// Neither could be flushed. Both errors are in the message; [`source`] is the traces'
    /// one (see [`FlushError::metrics`] for the other).
    ///
    /// [`source`]: std::error::Error::source
    #[error("hook spans: {traces}; hook metrics: {metrics}")]
    Both {
        /// What the tracer provider reported.
        #[source]
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

#[cfg(test)]
mod tests {
    use std::error::Error as _;
    use std::time::Duration;

    use super::*;

    #[test]
    fn every_variant_has_its_inner_error_as_source() {
        let build = [
            BuildError::SpanExporter(ExporterBuildError::InvalidConfiguration("span".into())),
            BuildError::MetricExporter(ExporterBuildError::InternalFailure("metric".into())),
        ];
        for err in &build {
            let source = err.source().expect("a source");
            assert!(err.to_string().ends_with(&source.to_string()), "{err}");
        }

        let traces = || OTelSdkError::AlreadyShutdown;
        let metrics = || OTelSdkError::Timeout(Duration::from_secs(1));
        for err in [
            FlushError::Traces(traces()),
            FlushError::Metrics(metrics()),
            FlushError::Both {
                traces: traces(),
                metrics: metrics(),
            },
        ] {
            let source = err.source().expect("a source");
            assert!(err.to_string().contains(&source.to_string()), "{err}");
        }
        // `Both`: the traces error is the source, and the message keeps both.
        let both = FlushError::Both {
            traces: traces(),
            metrics: metrics(),
        };
        assert_eq!(both.source().unwrap().to_string(), traces().to_string());
        let text = both.to_string();
        assert!(text.contains(&traces().to_string()) && text.contains(&metrics().to_string()));
    }
}
