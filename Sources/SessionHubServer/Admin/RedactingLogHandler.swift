import Logging

/// Wraps another handler (the plain-text `StreamLogHandler` of `--log-format text`) so that
/// its messages and metadata go through ``LogRedaction`` and then ``LogEscaping`` too: the
/// inner handler gets one event whose metadata is already merged (its own, the provider's, the
/// call's and an attached error, as `error.message` / `error.type`), redacted and escaped.
public struct RedactingLogHandler<Inner: LogHandler>: LogHandler {
    private var inner: Inner

    /// Wraps `inner`.
    public init(_ inner: Inner) {
        self.inner = inner
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = inner.metadata
        if let provided = inner.metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let explicit = event.metadata { merged.merge(explicit) { $1 } }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        var scrubbed = event
        scrubbed.message = "\(LogEscaping.escape(LogRedaction.scrub(event.message.description)))"
        scrubbed.metadata = merged.isEmpty ? nil : LogEscaping.escape(LogRedaction.redact(merged))
        scrubbed.error = nil
        var handler = inner
        handler.metadata = [:]
        if handler.metadataProvider != nil { handler.metadataProvider = nil }
        handler.log(event: scrubbed)
    }
}
