import ContentfulMirror

/// `contentful-mirror sync <dir> [options]`.
struct SyncCommand {
  let console: Console
  let environment: [String: String]

  /// The prefix of a manifest's host naming a recorded space directory.
  static let recordedPrefix = "recorded:"

  func run(_ arguments: [String]) async throws {
    let parsed = try ParsedArguments(
      arguments,
      valued: [
        "--space", "--environment", "--host", "--source", "--locale", "--token-file", "--token",
        "--encoders", "--writers", "--durability", "--checkpoint-every", "--timeout", "--retries",
      ],
      flags: ["--full", "--all-locales", "--quiet", "--help", "-h"])
    if parsed.flags.contains("--help") || parsed.flags.contains("-h") {
      return console.output(HelpText.sync)
    }
    guard parsed.positionals.count == 1, let directory = parsed.positionals.first else {
      throw UsageError("sync needs exactly one mirror directory")
    }
    if parsed.value("--source") != nil && parsed.value("--host") != nil {
      throw UsageError("--source and --host cannot be used together")
    }
    if parsed.values("--locale") != nil && parsed.flags.contains("--all-locales") {
      throw UsageError("--locale and --all-locales cannot be used together")
    }

    var options = SyncOptions(
      space: parsed.value("--space"), environment: parsed.value("--environment"),
      host: parsed.value("--host"), locales: parsed.values("--locale"),
      allLocales: parsed.flags.contains("--all-locales"), full: parsed.flags.contains("--full"))
    if let count = try parsed.integer("--encoders", in: 1...16) { options.encoderThreads = count }
    if let count = try parsed.integer("--writers", in: 1...16) { options.writerThreads = count }
    if let name = parsed.value("--durability") {
      guard let durability = Durability(rawValue: name) else {
        throw UsageError("--durability is syncfs (default), fsync or none")
      }
      options.durability = durability
    }
    if let pages = try parsed.integer("--checkpoint-every", in: 1...100_000, of: "pages") {
      options.pagesPerCheckpoint = pages
    }
    var retryPolicy = RetryPolicy()
    if let retries = try parsed.integer("--retries", in: 0...20) {
      retryPolicy.maximumAttempts = retries + 1
    }
    var requestTimeout = 60.0
    if let timeout = parsed.value("--timeout") {
      guard let seconds = Double(timeout), seconds >= 0.1, seconds <= 3600 else {
        throw UsageError("--timeout needs a number of seconds from 0.1 to 3600")
      }
      requestTimeout = seconds
    }
    let sync = MirrorSync(directory: directory)
    let source: any SpaceSource
    if let recording = parsed.value("--source") {
      let recorded = RecordedSpace(directory: recording)
      options.space = try options.space ?? recorded.spaceID()
      options.host = Self.recordedPrefix + recording
      source = recorded
    } else {
      let target = try sync.target(for: options)
      if target.host.hasPrefix(Self.recordedPrefix) {
        source = RecordedSpace(directory: String(target.host.dropFirst(Self.recordedPrefix.count)))
      } else {
        let token = try accessToken(parsed)
        source = CDAClient(
          configuration: .init(
            host: target.host, space: target.space, environment: target.environment),
          accessToken: token, retryPolicy: retryPolicy, requestTimeout: requestTimeout)
      }
    }

    let quiet = parsed.flags.contains("--quiet")
    let console = self.console
    let summary = try await sync.run(options, source: source) { event in
      guard !quiet else { return }
      switch event {
      case .resumed(let pages):
        console.error("resuming an interrupted sync after \(pages) committed pages\n")
      case .rerendered(let items):
        console.error(
          "locales or content types changed: re-rendered \(items) items from the stored snapshots\n"
        )
      case .pageApplied(let page, let items, let total):
        console.error("page \(page): \(items) items (\(total) so far)\n")
      case .removedStale(let items):
        console.error("removed \(items) items no longer in the space\n")
      }
    }
    console.output(
      "\(summary.initial ? "initial sync" : "delta sync") of \(directory) complete: \(summary.pages) pages, "
        + "\(summary.upserted) items updated, \(summary.deleted) deleted, "
        + "\(summary.documentsWritten) documents written, \(summary.documentsRemoved) removed "
        + "(locales: \(summary.locales.joined(separator: ", ")))\n")
  }

  /// The access token from `--token-file`, `--token` (with a warning) or `CONTENTFUL_ACCESS_TOKEN`.
  private func accessToken(_ parsed: ParsedArguments) throws -> String {
    if let path = parsed.value("--token-file") {
      let token = try TokenFile.read(path)
      guard !token.isEmpty else { throw UsageError("--token-file \(path) is empty") }
      return token
    }
    if let token = parsed.value("--token") {
      console.error(
        "contentful-mirror: warning: --token is visible to other users of this machine (ps, shell "
          + "history); prefer CONTENTFUL_ACCESS_TOKEN or --token-file\n")
      return token
    }
    if let token = environment["CONTENTFUL_ACCESS_TOKEN"], !token.isEmpty { return token }
    throw UsageError(
      "no access token: set CONTENTFUL_ACCESS_TOKEN or pass --token-file <path> "
        + "(or --source <dir> to sync a recorded space)")
  }
}
