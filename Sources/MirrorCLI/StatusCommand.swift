import ContentfulMirror

/// `contentful-mirror status <dir> [--json]`.
struct StatusCommand {
  let console: Console

  func run(_ arguments: [String]) throws {
    let parsed = try ParsedArguments(arguments, valued: [], flags: ["--json", "--help", "-h"])
    if parsed.flags.contains("--help") || parsed.flags.contains("-h") {
      return console.output(HelpText.status)
    }
    guard parsed.positionals.count == 1, let directory = parsed.positionals.first else {
      throw UsageError("status needs exactly one mirror directory")
    }
    let status = try MirrorStatus.read(directory: directory)
    if parsed.flags.contains("--json") {
      return console.output(String(decoding: CanonicalJSON.encode(status.json), as: UTF8.self))
    }
    let manifest = status.manifest
    var lines = [
      "mirror:        \(directory)",
      "space:         \(manifest.space)",
      "environment:   \(manifest.environment)",
      "host:          \(manifest.host)",
      "sync token:    \(manifest.syncToken.isEmpty ? "absent" : "present")",
      "last sync:     \(status.lastSyncFinishedAt ?? "unknown")\(status.syncInProgress ? " (a later sync was interrupted; `sync` resumes it)" : "")",
      "locales:       \(manifest.mirroredLocales.joined(separator: ", "))",
      "entries:       \(status.entryCounts.values.reduce(0, +)) per locale",
    ]
    for (type, count) in status.entryCounts.sorted(by: { $0.key < $1.key }) {
      lines.append("  \(type): \(count)")
    }
    lines.append("assets:        \(status.assetCount) per locale")
    lines.append(
      "documents:     \((status.entryCounts.values.reduce(0, +) + status.assetCount) * manifest.mirroredLocales.count) (\(manifest.mirroredLocales.count) locales)"
    )
    lines.append("dangling link targets: \(status.danglingTargets)")
    console.output(lines.joined(separator: "\n") + "\n")
  }
}
