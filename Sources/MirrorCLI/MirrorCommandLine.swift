import ContentfulMirror

/// The `contentful-mirror` command line: parses arguments, runs a command, maps the outcome to
/// an exit code and one clear line on standard error.
public struct MirrorCommandLine: Sendable {
  public var console: Console
  public var environment: [String: String]

  /// - Parameters:
  ///   - console: Where to write.
  ///   - environment: The process environment (for `CONTENTFUL_ACCESS_TOKEN`).
  public init(console: Console = .standard, environment: [String: String]) {
    self.console = console
    self.environment = environment
  }

  /// Runs the command named by `arguments` (without the program name).
  ///
  /// - Returns: The process exit code.
  public func run(_ arguments: [String]) async -> Int32 {
    do {
      try await dispatch(arguments)
      return ExitCode.success.rawValue
    } catch let error as UsageError {
      console.error(
        "contentful-mirror: \(error.message)\nRun `contentful-mirror --help` for usage.\n")
      return ExitCode.usage.rawValue
    } catch {
      console.error("contentful-mirror: error: \(error)\n")
      return ExitCode.failure.rawValue
    }
  }

  private func dispatch(_ arguments: [String]) async throws {
    guard let command = arguments.first else { throw UsageError("no command given") }
    let rest = Array(arguments.dropFirst())
    switch command {
    case "sync": try await SyncCommand(console: console, environment: environment).run(rest)
    case "status": try StatusCommand(console: console).run(rest)
    case "export": try ExportCommand(console: console, environment: environment).run(rest)
    case "restore": try await RestoreCommand(console: console).run(rest)
    case "help", "-h", "--help":
      switch rest.first {
      case "sync": console.output(HelpText.sync)
      case "status": console.output(HelpText.status)
      case "export": console.output(HelpText.export)
      case "restore": console.output(HelpText.restore)
      default: console.output(HelpText.main)
      }
    case "--version", "version":
      console.output("contentful-mirror \(ContentfulMirrorVersion.current)\n")
    default: throw UsageError("unknown command \(command)")
    }
  }
}
