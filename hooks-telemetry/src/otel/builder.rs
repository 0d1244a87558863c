//! [`TelemetryBuilder`]: the resource, the OTLP endpoint, or providers of the caller's own.

use std::cell::LazyCell;
use std::fmt;

use opentelemetry::{Key, KeyValue, Value};
use opentelemetry_otlp::{MetricExporter, Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;

use super::{BuildError, Telemetry};

const SERVICE_NAME: &str = "service.name";
const SERVICE_INSTANCE_ID: &str = "service.instance.id";
const HOST_NAME: &str = "host.name";
const PROCESS_PID: &str = "process.pid";

/// Builds a [`Telemetry`]: see [`Telemetry::builder`] and the [module docs](super) for the
/// defaults.
#[must_use]
pub struct TelemetryBuilder {
    /// Explicit resource attributes, in call order (a later one wins).
    attributes: Vec<KeyValue>,
    endpoint: Option<String>,
    tracer_provider: Option<SdkTracerProvider>,
    meter_provider: Option<SdkMeterProvider>,
}

impl TelemetryBuilder {
    pub(super) fn new() -> TelemetryBuilder {
        TelemetryBuilder {
            attributes: Vec::new(),
            endpoint: None,
            tracer_provider: None,
            meter_provider: None,
        }
    }

    /// The `service.name` resource attribute: what the agent is (`"review-bot"`), the same for
    /// every process of the fleet. Default: `OTEL_SERVICE_NAME`, else `unknown_service`.
    pub fn service_name(self, name: impl Into<String>) -> Self {
        self.resource_attribute(SERVICE_NAME, name.into())
    }

    /// The `service.instance.id` resource attribute: which process this is. Default:
    /// `service.instance.id` from `OTEL_RESOURCE_ATTRIBUTES`, else `{host name}-{pid}`.
    pub fn service_instance_id(self, id: impl Into<String>) -> Self {
        self.resource_attribute(SERVICE_INSTANCE_ID, id.into())
    }

    /// Another resource attribute (`deployment.environment.name`, `service.namespace`,
    /// `service.version`, a tenant, …). It overrides the default and the environment's value
    /// of the same key.
    pub fn resource_attribute(mut self, key: impl Into<Key>, value: impl Into<Value>) -> Self {
        self.attributes.push(KeyValue::new(key, value));
        self
    }

    /// The base URL of the OTLP/HTTP receiver (`http://collector:4318`): spans go to
    /// `{endpoint}/v1/traces` and metrics to `{endpoint}/v1/metrics`. Default: the
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`/`OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` URLs, else
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` as base URL, else `http://localhost:4318`.
    pub fn endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.endpoint = Some(endpoint.into());
        self
    }

    /// Record spans with this provider instead of building one that exports over OTLP (to share
    /// the application's OpenTelemetry setup, or to test with an in-memory exporter). The
    /// provider keeps its own resource; [`Telemetry::shutdown`] flushes it but does not shut it
    /// down.
    pub fn tracer_provider(mut self, provider: SdkTracerProvider) -> Self {
        self.tracer_provider = Some(provider);
        self
    }

    /// Record metrics with this provider instead of building one that exports over OTLP. As
    /// for [`tracer_provider`](Self::tracer_provider), it keeps its own resource and is only
    /// flushed by [`Telemetry::shutdown`].
    pub fn meter_provider(mut self, provider: SdkMeterProvider) -> Self {
        self.meter_provider = Some(provider);
        self
    }

    /// Build the providers that were not supplied (an OTLP/HTTP exporter each, from a batch
    /// span processor and a periodic metric reader, both on background threads) and create the
    /// tracer and the instruments.
    ///
    /// # Errors
    ///
    /// [`BuildError`] if an OTLP exporter cannot be configured: an invalid endpoint, here or in
    /// an `OTEL_EXPORTER_OTLP_*` variable.
    pub fn build(self) -> Result<Telemetry, BuildError> {
        if self.tracer_provider.is_some()
            && self.meter_provider.is_some()
            && (!self.attributes.is_empty() || self.endpoint.is_some())
        {
            tracing::warn!(
                "hook telemetry: resource attributes and endpoint ignored, \
                 both providers were supplied"
            );
        }
        let attributes = self.attributes;
        let resource = LazyCell::new(move || resource(attributes));
        let endpoint = self.endpoint.map(|e| e.trim_end_matches('/').to_owned());

        // Both exporters first: a configuration error then leaves no thread behind.
        let traces = match self.tracer_provider {
            Some(provider) => Source::Supplied(provider),
            None => {
                let mut exporter = SpanExporter::builder()
                    .with_http()
                    .with_protocol(Protocol::HttpBinary);
                if let Some(endpoint) = &endpoint {
                    exporter = exporter.with_endpoint(format!("{endpoint}/v1/traces"));
                }
                Source::Otlp(exporter.build().map_err(BuildError::SpanExporter)?)
            }
        };
        let metrics = match self.meter_provider {
            Some(provider) => Source::Supplied(provider),
            None => {
                let mut exporter = MetricExporter::builder()
                    .with_http()
                    .with_protocol(Protocol::HttpBinary);
                if let Some(endpoint) = &endpoint {
                    exporter = exporter.with_endpoint(format!("{endpoint}/v1/metrics"));
                }
                Source::Otlp(exporter.build().map_err(BuildError::MetricExporter)?)
            }
        };

        let (tracer_provider, owns_tracer_provider) = match traces {
            Source::Supplied(provider) => (provider, false),
            Source::Otlp(exporter) => {
                let provider = SdkTracerProvider::builder()
                    .with_batch_exporter(exporter)
                    .with_resource(Resource::clone(&resource))
                    .build();
                (provider, true)
            }
        };
        let (meter_provider, owns_meter_provider) = match metrics {
            Source::Supplied(provider) => (provider, false),
            Source::Otlp(exporter) => {
                let provider = SdkMeterProvider::builder()
                    .with_periodic_exporter(exporter)
                    .with_resource(Resource::clone(&resource))
                    .build();
                (provider, true)
            }
        };
        tracing::debug!(
            endpoint = endpoint.as_deref().unwrap_or("(from the environment)"),
            owns_tracer_provider,
            owns_meter_provider,
            "hook telemetry built"
        );
        Ok(Telemetry::from_parts(
            tracer_provider,
            owns_tracer_provider,
            meter_provider,
            owns_meter_provider,
        ))
    }
}

/// Where one signal goes: the caller's provider, or one built around this OTLP exporter.
enum Source<P, E> {
    Supplied(P),
    Otlp(E),
}

impl fmt::Debug for TelemetryBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TelemetryBuilder")
            .field("attributes", &self.attributes)
            .field("endpoint", &self.endpoint)
            .field("tracer_provider", &self.tracer_provider.is_some())
            .field("meter_provider", &self.meter_provider.is_some())
            .finish()
    }
}

/// The resource of the providers this module builds: the SDK's detectors (`OTEL_SERVICE_NAME`,
/// `OTEL_RESOURCE_ATTRIBUTES`, `telemetry.sdk.*`), then this process's defaults where the
/// environment set none, then the builder's attributes.
fn resource(explicit: Vec<KeyValue>) -> Resource {
    let detected = Resource::builder().build();
    let absent = |key: &'static str| detected.get(&Key::from_static_str(key)).is_none();
    let host = host_name();
    let mut defaults = Vec::with_capacity(3);
    if absent(SERVICE_INSTANCE_ID) {
        let host = host.as_deref().unwrap_or("localhost");
        defaults.push(KeyValue::new(
            SERVICE_INSTANCE_ID,
            format!("{host}-{}", std::process::id()),
        ));
    }
    if let Some(host) = host.filter(|_| absent(HOST_NAME)) {
        defaults.push(KeyValue::new(HOST_NAME, host));
    }
    if absent(PROCESS_PID) {
        defaults.push(KeyValue::new(PROCESS_PID, i64::from(std::process::id())));
    }
    Resource::builder()
        .with_attributes(defaults)
        .with_attributes(explicit)
        .build()
}

/// The machine's host name (on Linux the UTS name, which is the pod name in Kubernetes), if it
/// can be found without a system call crate.
fn host_name() -> Option<String> {
    let from_file = ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .into_iter()
        .filter_map(|path| std::fs::read_to_string(path).ok());
    let from_env = ["HOSTNAME", "COMPUTERNAME"]
        .into_iter()
        .filter_map(|var| std::env::var(var).ok());
    from_file
        .chain(from_env)
        .map(|name| name.trim().to_owned())
        .find(|name| !name.is_empty())
}
