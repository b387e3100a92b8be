import ContentfulMirror

/// `contentful-mirror restore <archive|-> <dir> [--force]` and `restore --apply <bundle> <dir>`.
struct RestoreCommand {
  let console: Console

  func run(_ arguments: [String]) async throws {
    let parsed = try ParsedArguments(
      arguments, valued: ["--apply"], flags: ["--force", "--help", "-h"])
    if parsed.flags.contains("--help") || parsed.flags.contains("-h") {
      return console.output(HelpText.restore)
    }
    if let bundle = parsed.value("--apply") {
      guard parsed.positionals.count == 1, let directory = parsed.positionals.first else {
        throw UsageError("restore --apply <bundle> needs exactly one mirror directory")
      }
      let summary = try await MirrorRestore(directory: directory).apply(bundle: bundle)
      return console.output(
        "applied \(bundle) to \(directory): \(summary.upserted) items updated, \(summary.deleted) deleted, "
          + "\(summary.documentsWritten) documents written, \(summary.documentsRemoved) removed\n")
    }
    guard parsed.positionals.count == 2 else {
      throw UsageError("restore needs an archive and a target directory")
    }
    let summary = try MirrorRestore(directory: parsed.positionals[1])
      .restore(from: parsed.positionals[0], force: parsed.flags.contains("--force"))
    console.output(
      "restored \(summary.items) items (\(summary.files) files) into \(parsed.positionals[1]); "
        + "`contentful-mirror sync \(parsed.positionals[1])` continues from the archived sync token\n"
    )
  }
}
