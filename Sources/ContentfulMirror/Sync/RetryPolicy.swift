/// How long and how often the client retries a request that failed for a passing reason.
///
/// 5xx responses and dropped connections back off exponentially with full jitter; a 429 waits
/// for the server's `X-Contentful-RateLimit-Reset`, unless that exceeds ``maximumRateLimitWait``.
/// Both the number of attempts and the total time spent waiting are bounded.
public struct RetryPolicy: Sendable, Hashable {
  /// Attempts per request, the first included.
  public var maximumAttempts: Int
  /// The first backoff; each later one doubles, up to ``maximumDelay``.
  public var baseDelay: Duration
  public var maximumDelay: Duration
  /// The longest rate-limit wait accepted; a longer reset fails the sync with a clear message.
  public var maximumRateLimitWait: Duration
  /// The most time spent waiting across all retries of one request.
  public var totalWaitBudget: Duration

  public init(
    maximumAttempts: Int = 6, baseDelay: Duration = .milliseconds(500),
    maximumDelay: Duration = .seconds(20), maximumRateLimitWait: Duration = .seconds(60),
    totalWaitBudget: Duration = .seconds(180)
  ) {
    self.maximumAttempts = maximumAttempts
    self.baseDelay = baseDelay
    self.maximumDelay = maximumDelay
    self.maximumRateLimitWait = maximumRateLimitWait
    self.totalWaitBudget = totalWaitBudget
  }

  /// The backoff before attempt `attempt + 1` (attempt counts from 1), with full jitter.
  func backoff(afterAttempt attempt: Int) -> Duration {
    let exponent = min(attempt - 1, 20)
    let ceiling = min(baseDelay * (1 << exponent), maximumDelay)
    let nanoseconds =
      Double(ceiling.components.seconds) * 1e9 + Double(ceiling.components.attoseconds) / 1e9
    return .nanoseconds(Int64(Double.random(in: 0.5...1.0) * nanoseconds))
  }
}
