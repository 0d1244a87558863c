//! OpenTelemetry export from the daemon: every hook run it makes becomes a span and metric
//! points ([`hookrail_telemetry::otel`]), exported over OTLP/HTTP by the SDK's own threads.
//!
//! Export is on when an endpoint is configured: `--otlp-endpoint URL`, or one of the standard
//! variables `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
//! `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`. `OTEL_SDK_DISABLED=true` turns it off (as in every
//! OpenTelemetry SDK), except that an explicit `--otlp-endpoint` still wins. Without an
//! endpoint nothing is exported: a daemon does not post to `localhost:4318` by surprise.
//!
//! `service.name` is `OTEL_SERVICE_NAME` or `hooks-serve`; the resource also carries
//! `hookrail.project` (the project root), so daemons of several projects land apart on one
//! dashboard. On shutdown what is recorded is exported before the process exits.

use std::path::Path;

use hookrail_core::runtime::Hooks;

use crate::CliError;

/// The variables that configure an OTLP endpoint.
const ENDPOINT_VARIABLES: [&str; 3] = [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
];

/// Where export goes, when it is on: the option, or the variable that turned it on.
pub(crate) fn configured(option: Option<&str>) -> Option<String> {
    if let Some(endpoint) = option {
        return Some(endpoint.to_owned());
    }
    let disabled =
        std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.trim().eq_ignore_ascii_case("true"));
    if disabled {
        return None;
    }
    ENDPOINT_VARIABLES.iter().find_map(|name| {
        std::env::var(name)
            .ok()
            .filter(|v| !v.trim().is_empty())
            .map(|v| format!("{v} (${name})"))
    })
}

/// The daemon's exporter, attached to its hook set.
#[cfg(feature = "otel")]
pub(crate) struct Export {
    telemetry: hookrail_telemetry::otel::Telemetry,
    _attached: hookrail_telemetry::otel::Attachment,
}

#[cfg(feature = "otel")]
impl Export {
    /// Starts exporting the runs of `hooks` when an endpoint is configured.
    ///
    /// # Errors
    ///
    /// [`CliError::Input`] when the endpoint (the option's or a variable's) is not a URL the
    /// exporter accepts: a daemon asked to export must not start silently without it.
    pub(crate) fn start(
        option: Option<&str>,
        hooks: &Hooks,
        root: &Path,
    ) -> Result<Option<Export>, CliError> {
        use hookrail_telemetry::otel::Telemetry;
        let Some(endpoint) = configured(option) else {
            return Ok(None);
        };
        let mut builder =
            Telemetry::builder().resource_attribute("hookrail.project", root.display().to_string());
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            builder = builder.service_name("hooks-serve");
        }
        if let Some(option) = option {
            builder = builder.endpoint(option);
        }
        let telemetry = builder.build().map_err(|e| {
            CliError::Input(format!(
                "OpenTelemetry export to {endpoint} cannot start: {e}"
            ))
        })?;
        let attached = telemetry.attach(hooks);
        tracing::info!("exporting hook runs over OTLP/HTTP to {endpoint}");
        Ok(Some(Export {
            telemetry,
            _attached: attached,
        }))
    }

    /// Exports what is left and stops the exporter's threads. Returns what to report when the
    /// export failed (the receiver down): the runs it held are lost, and the log says so.
    pub(crate) async fn finish(self) -> Option<String> {
        let telemetry = self.telemetry.clone();
        // `shutdown` blocks on the exporters' HTTP requests.
        let done = tokio::task::spawn_blocking(move || telemetry.shutdown()).await;
        match done {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(format!("OpenTelemetry: the last export failed: {e}")),
            Err(e) => Some(format!(
                "OpenTelemetry: the last export did not finish: {e}"
            )),
        }
    }
}

/// Without the `otel` feature: an endpoint given on the command line is refused, one in the
/// environment is reported once (this build cannot export it).
#[cfg(not(feature = "otel"))]
pub(crate) struct Export;

#[cfg(not(feature = "otel"))]
impl Export {
    pub(crate) fn start(
        option: Option<&str>,
        _hooks: &Hooks,
        _root: &Path,
    ) -> Result<Option<Export>, CliError> {
        if option.is_some() {
            return Err(CliError::Input(
                "--otlp-endpoint: this build of `hooks` lacks the `otel` feature".to_owned(),
            ));
        }
        if let Some(endpoint) = configured(None) {
            tracing::warn!(
                "OpenTelemetry endpoint {endpoint} ignored: this build of `hooks` lacks the `otel` feature"
            );
        }
        Ok(None)
    }

    pub(crate) async fn finish(self) -> Option<String> {
        None
    }
}
