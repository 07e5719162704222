/// Receives the client's media metrics about once a second.
///
/// Callbacks arrive asynchronously on the session's callback queue.
public protocol MetricsObserver: AnyObject {
    /// The current metrics: keys are ``ObservableMetric`` values (not strings), values are `Double`s; a metric
    /// without a current measurement is absent.
    func metricsDidReceive(metrics: [AnyHashable: Any])
}
