import ContentfulMirror

/// `contentful-mirror export <dir> -o <file|-> [options]`.
struct ExportCommand {
  let console: Console
  let environment: [String: String]

  func run(_ arguments: [String]) throws {
    let parsed = try ParsedArguments(
      arguments,
      valued: [
        "-o", "--output", "--format", "--level", "--locale", "--content-type", "--layout",
        "--since",
      ],
      flags: ["--help", "-h"])
    if parsed.flags.contains("--help") || parsed.flags.contains("-h") {
      return console.output(HelpText.export)
    }
    guard parsed.positionals.count == 1, let directory = parsed.positionals.first else {
      throw UsageError("export needs exactly one mirror directory")
    }
    guard let output = parsed.value("-o") ?? parsed.value("--output") else {
      throw UsageError("export needs -o <file> (or -o - with --format for standard output)")
    }
    let format: ArchiveFormat
    if let name = parsed.value("--format") {
      guard let named = ArchiveFormat(name: name) else {
        throw UsageError("unknown --format \(name) (tar, tar.gz, tar.zst, tar.xz, zip)")
      }
      format = named
    } else if output != "-", let inferred = ArchiveFormat(fileName: output) {
      format = inferred
    } else {
      throw UsageError(
        "cannot tell the format from \(output); add --format tar|tar.gz|tar.zst|tar.xz|zip")
    }
    var level: Int?
    if let text = parsed.value("--level") {
      guard let value = Int(text) else { throw UsageError("--level needs a number") }
      level = value
    }
    var layout = ExportOptions.Layout.mirror
    if let name = parsed.value("--layout") {
      guard let named = ExportOptions.Layout(rawValue: name) else {
        throw UsageError("unknown --layout \(name) (mirror, by-locale)")
      }
      layout = named
    }
    var since = parsed.value("--since")
    if let value = since, value.hasSuffix(".json") || value.contains("/") {
      since = try Self.token(fromManifest: value)
    }
    var epoch: Int?
    if let text = environment["SOURCE_DATE_EPOCH"], !text.isEmpty {
      guard let value = Int(text), value >= 0 else {
        throw UsageError("SOURCE_DATE_EPOCH must be a number of seconds")
      }
      epoch = value
    }
    let options = ExportOptions(
      format: format, level: level, locales: parsed.values("--locale"),
      contentTypes: parsed.values("--content-type"),
      layout: layout, since: since, sourceDateEpoch: epoch)
    let summary = try MirrorExport(directory: directory).write(to: output, options: options)
    // The archive may be on standard output: the report goes to standard error.
    console.error(
      "exported \(summary.items) items\(options.since != nil ? " and \(summary.deleted) deletions" : "") "
        + "as \(summary.members) members to \(output == "-" ? "standard output" : output) "
        + "(\(format.rawValue), mtime \(summary.modificationTime))\n")
  }

  /// The `syncToken` of an earlier manifest file (a mirror's or an archive's).
  static func token(fromManifest path: String) throws -> String {
    let text = try TokenFile.readAll(path)
    guard let token = (try? JSONReader().read(text))?["syncToken"]?.stringValue else {
      throw UsageError("--since \(path) is not a manifest with a syncToken")
    }
    return token
  }
}
