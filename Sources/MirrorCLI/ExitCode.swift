/// The process exit codes of `contentful-mirror`.
public enum ExitCode: Int32, Sendable {
  case success = 0
  /// Any failure; stderr says what failed and what to do.
  case failure = 1
  /// The command was called wrongly (sysexits' EX_USAGE).
  case usage = 64
}
