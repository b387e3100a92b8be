import ContentfulMirror
import Foundation
import MirrorTestSupport
import Testing

/// Hostile and malformed input, table-driven, through the real executable over loopback HTTP.
///
/// Each case starts from a mirror synced to the sample space's first token, replaces one
/// response of the recorded space (or plants something in the mirror), runs `sync`, and checks
/// the exit code, the message, that nothing appeared outside the mirror, and, for refusals, that
/// the mirror is byte-for-byte what it was.
@Suite struct HostileInputTests {
  static let token = "CFPAT-hostile-table-77"
  static let nextSync =
    "https://cdn.contentful.com/spaces/mirrorsample01/environments/master/sync?sync_token=delta-2"

  /// One row of the table.
  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    /// Replaces a file of the recorded space: path relative to it, and the new bytes.
    var response: (file: String, bytes: [UInt8])
    var status: Int32
    /// A fragment of standard error (failures) or a check of the mirror (successes).
    var message: String = ""
    var check: (@Sendable (String) throws -> Void)? = nil

    var testDescription: String { name }
  }

  // MARK: Building responses

  static func entry(
    _ id: String, type: String = "post", fields: String = #"{"title": {"en-US": "x"}}"#
  ) -> String {
    #"{"sys": {"type": "Entry", "id": "\#(id)", "revision": 1, "contentType": {"sys": {"type": "Link", "linkType": "ContentType", "id": "\#(type)"}}}, "fields": \#(fields)}"#
  }

  static func page(_ items: [String]) -> (file: String, bytes: [UInt8]) {
    (
      "sync/delta-1.json",
      Array(
        #"{"sys": {"type": "Array"}, "items": [\#(items.joined(separator: ", "))], "nextSyncUrl": "\#(nextSync)"}"#
          .utf8)
    )
  }

  static func rawPage(_ bytes: [UInt8]) -> (file: String, bytes: [UInt8]) {
    ("sync/delta-1.json", bytes)
  }

  static func document(_ mirror: String, _ relative: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: mirror + "/" + relative)))
  }

  static let sampleLocales =
    (try? String(contentsOfFile: RepositoryPaths.sampleSpace + "/locales.json", encoding: .utf8))
    ?? ""
  static let sampleTypes =
    (try? String(
      contentsOfFile: RepositoryPaths.sampleSpace + "/content_types.json", encoding: .utf8)) ?? ""

  static let refusals: [Case] = [
    Case(name: "id with a slash", response: page([entry("a/b")]), status: 1, message: #""a/b""#),
    Case(name: "id ..", response: page([entry("..")]), status: 1, message: "invalid entry id"),
    Case(name: "id .", response: page([entry(".")]), status: 1, message: "invalid entry id"),
    Case(
      name: "id with NUL", response: page([entry(#"a\u0000b"#)]), status: 1, message: #""a\0b""#),
    Case(
      name: "id of 65 characters", response: page([entry(String(repeating: "x", count: 65))]),
      status: 1, message: "1-64 characters"),
    Case(name: "non-ASCII id", response: page([entry("caf\u{e9}")]), status: 1, message: "caf"),
    Case(
      name: "content type id with a slash", response: page([entry("ok", type: "../post")]),
      status: 1, message: "invalid content type id"),
    Case(
      name: "locale code in fields with a slash",
      response: page([entry("ok", fields: #"{"title": {"../x": "v"}}"#)]), status: 1,
      message: "invalid locale code"),
    Case(
      name: "locale code in /locales with a slash",
      response: (
        "locales.json",
        Array(sampleLocales.replacingOccurrences(of: #""fr-FR""#, with: #""fr/FR""#).utf8)
      ), status: 1, message: "invalid locale code"),
    Case(
      name: "locale code with a leading dash",
      response: (
        "locales.json",
        Array(sampleLocales.replacingOccurrences(of: #""fr-FR""#, with: #""-fr""#).utf8)
      ), status: 1, message: "invalid locale code"),
    Case(
      name: "content type id in /content_types with ..",
      response: (
        "content_types.json",
        Array(sampleTypes.replacingOccurrences(of: #""id": "author""#, with: #""id": "..""#).utf8)
      ), status: 1, message: "invalid content type id"),
    Case(
      name: "duplicate ids within a page", response: page([entry("twice"), entry("twice")]),
      status: 1, message: "lists Entry:twice twice"),
    Case(
      name: "entry without a content type",
      response: page([#"{"sys": {"type": "Entry", "id": "untyped"}, "fields": {}}"#]), status: 1,
      message: "has no sys.contentType"),
    Case(
      name: "malformed JSON", response: rawPage(Array(#"{"items": [ {"sys": "#.utf8)), status: 1,
      message: "not valid JSON"),
    Case(
      name: "invalid UTF-8",
      response: page([entry("ok", fields: "{\"title\": {\"en-US\": \"a\u{1}\"}}")]).bytes.map {
        $0 == 1 ? 0xFF : $0
      }.withFile, status: 1, message: "UTF-8"),
    Case(
      name: "nesting 10,000 deep",
      response: page([
        entry(
          "deep",
          fields: #"{"title": {"en-US": "# + String(repeating: "[", count: 10_000)
            + String(repeating: "]", count: 10_000) + "}}")
      ]), status: 1, message: "nest"),
    Case(
      name: "duplicate keys",
      response: page([entry("dup", fields: #"{"title": {"en-US": "a", "en-US": "b"}}"#)]),
      status: 1, message: "duplicate key"),
  ]

  static let acceptances: [Case] = [
    Case(
      name: "id with a leading dash stays inside the mirror", response: page([entry("-lead")]),
      status: 0,
      check: { mirror throws in
        #expect(try document(mirror, "entries/post/-lead/en-US.json").count > 0)
      }),
    Case(
      name: "id with a leading dot is an ordinary item", response: page([entry(".hidden")]),
      status: 0,
      check: { mirror throws in
        #expect(try document(mirror, "entries/post/.hidden/de-AT.json").count > 0)
      }),
    Case(
      name: "Windows-reserved names are mirrored as they are (POSIX file systems)",
      response: page([entry("CON"), entry("nul"), entry("aux.txt")]), status: 0,
      check: { mirror throws in
        for id in ["CON", "nul", "aux.txt"] {
          #expect(try document(mirror, "entries/post/\(id)/en-US.json").count > 0)
        }
      }),
    Case(
      name: "numbers 1e400 and -0 are kept as sent",
      response: page([entry("numbers", fields: #"{"title": {"en-US": [1e400, -0, 0.10]}}"#)]),
      status: 0,
      check: { mirror throws in
        let text = String(
          decoding: try document(mirror, "entries/post/numbers/de-AT.json"), as: UTF8.self)
        #expect(text.contains("1e400") && text.contains("-0,") && text.contains("0.10"))
      }),
    Case(
      name: "a 50 MB string field is written whole",
      response: page([
        entry(
          "huge",
          fields: #"{"title": {"en-US": ""# + String(repeating: "y", count: 50_000_000) + #""}}"#)
      ]), status: 0,
      check: { mirror throws in
        let value = try JSONReader().read(try document(mirror, "entries/post/huge/en-US.json"))
        #expect(value["fields"]?["title"]?.stringValue?.utf8.count == 50_000_000)
      }),
    Case(
      name: "an entry whose content type changes moves to its new directory",
      response: page([entry("winter-gear", type: "author")]), status: 0,
      check: { mirror throws in
        #expect(!FileManager.default.fileExists(atPath: mirror + "/entries/post/winter-gear"))
        let moved = try JSONReader().read(
          try document(mirror, "entries/author/winter-gear/en-US.json"))
        #expect(moved["sys"]?["contentType"]?["sys"]?["id"] == "author")
      }),
  ]

  // MARK: Running a case

  var runner: CommandRunner {
    var runner = CommandRunner()
    runner.environment["CONTENTFUL_ACCESS_TOKEN"] = Self.token
    return runner
  }

  /// A work directory holding a copy of the sample space, a server for it, and a mirror synced
  /// once (token `delta-1`).
  func prepared(_ label: String) throws -> (TemporaryDirectory, RecordedSpaceServer, String) {
    let work = try TemporaryDirectory(label)
    try RepositoryPaths.copySampleSpace(to: work.appending("space"))
    let server = try RecordedSpaceServer(
      directory: work.appending("space"), accessToken: Self.token)
    let mirror = work.appending("content")
    let first = try runner.run(sync(mirror, server))
    #expect(first.status == 0, "\(first.error)")
    return (work, server, mirror)
  }

  func sync(_ mirror: String, _ server: RecordedSpaceServer) -> [String] {
    ["sync", mirror, "--space", "mirrorsample01", "--host", server.baseURL, "--retries", "0"]
  }

  @Test(arguments: refusals)
  func hostileResponsesAreRefusedWithAClearMessageAndChangeNothing(_ row: Case) throws {
    let (work, server, mirror) = try prepared("hostile")
    let before = DirectoryTree.mirror(at: mirror)
    try Data(row.response.bytes).write(
      to: URL(fileURLWithPath: work.appending("space/" + row.response.file)))
    let result = try runner.run(sync(mirror, server))
    #expect(result.status == row.status, "\(row.name): \(result.error)")
    #expect(result.error.contains(row.message), "\(row.name): \(result.error)")
    #expect(result.error.utf8.count < 2_000, "\(row.name): the message should be one line")
    #expect(DirectoryTree.mirror(at: mirror) == before, "\(row.name): the mirror changed")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: work.path).sorted() == [
        "content", "space",
      ], "\(row.name): something was written beside the mirror")
  }

  @Test(arguments: acceptances)
  func unusualButValidResponsesAreMirroredInsideTheMirror(_ row: Case) throws {
    let (work, server, mirror) = try prepared("unusual")
    try Data(row.response.bytes).write(
      to: URL(fileURLWithPath: work.appending("space/" + row.response.file)))
    let result = try runner.run(sync(mirror, server))
    #expect(result.status == row.status, "\(row.name): \(result.error)")
    try row.check?(mirror)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: work.path).sorted() == [
        "content", "space",
      ])
    // What was mirrored also survives an export and a restore.
    let archive = work.appending("content.tar")
    #expect(try runner.run(["export", mirror, "-o", archive]).status == 0)
    let restored = work.appending("restored")
    let restore = try runner.run(["restore", archive, restored])
    #expect(restore.status == 0, "\(row.name): \(restore.error)")
    #expect(DirectoryTree.content(at: restored) == .content(at: mirror))
  }

  // MARK: Planted links and damaged manifests

  @Test func aSymlinkedContentTypeDirectoryIsRefusedBySyncAndExport() throws {
    let (work, server, mirror) = try prepared("planted")
    let elsewhere = try TemporaryDirectory("elsewhere")
    try FileManager.default.moveItem(
      atPath: mirror + "/entries/post", toPath: work.appending("post-moved"))
    try FileManager.default.createSymbolicLink(
      atPath: mirror + "/entries/post", withDestinationPath: elsewhere.path)
    let before = DirectoryTree.mirror(at: mirror)
    let sync = try runner.run(self.sync(mirror, server))
    #expect(sync.status == 1 && sync.error.contains("symbolic link"), "\(sync.error)")
    let export = try runner.run(["export", mirror, "-o", work.appending("x.tar")])
    #expect(export.status == 1 && export.error.contains("symbolic link"), "\(export.error)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == [])
    #expect(DirectoryTree.mirror(at: mirror) == before)
    #expect(!FileManager.default.fileExists(atPath: work.appending("x.tar")))
  }

  @Test func aManifestSymlinkedToASystemFileIsNeitherReadNorReplaced() throws {
    let (work, server, mirror) = try prepared("planted-manifest")
    let victim = work.appending("passwd")
    try Data("root:x:0:0:root:/root:/bin/sh\n".utf8).write(to: URL(fileURLWithPath: victim))
    try FileManager.default.removeItem(atPath: mirror + "/manifest.json")
    try FileManager.default.createSymbolicLink(
      atPath: mirror + "/manifest.json", withDestinationPath: victim)
    for arguments in [sync(mirror, server), ["export", mirror, "-o", work.appending("x.tar")]] {
      let result = try runner.run(arguments)
      #expect(result.status == 1 && result.error.contains("symbolic link"), "\(result.error)")
    }
    // The documented recovery replaces the link itself, never what it points to.
    let full = try runner.run(sync(mirror, server) + ["--full"])
    #expect(full.status == 0, "\(full.error)")
    let type = try FileManager.default.attributesOfItem(atPath: mirror + "/manifest.json")[.type]
    #expect(type as? FileAttributeType == .typeRegular)
    #expect(
      try String(contentsOfFile: victim, encoding: .utf8) == "root:x:0:0:root:/root:/bin/sh\n")
  }

  @Test(arguments: [
    ("{ not json", "not valid JSON"),
    (#"{"format": 99, "syncToken": "x"}"#, "format"),
  ])
  func aHandEditedManifestSaysHowToRecoverAndFullRebuilds(_ text: String, _ message: String)
    throws
  {
    let (work, server, mirror) = try prepared("manifest")
    defer { withExtendedLifetime(work) {} }
    try Data(text.utf8).write(to: URL(fileURLWithPath: mirror + "/manifest.json"))
    let result = try runner.run(sync(mirror, server))
    #expect(result.status == 1)
    #expect(
      result.error.contains(message) && result.error.contains("sync --full"), "\(result.error)")
    let status = try runner.run(["status", mirror])
    #expect(status.status == 1 && status.error.contains("sync --full"), "\(status.error)")
    let full = try runner.run(sync(mirror, server) + ["--full"])
    #expect(full.status == 0, "\(full.error)")
  }
}

extension [UInt8] {
  /// These bytes as the replacement of the recorded delta page.
  fileprivate var withFile: (file: String, bytes: [UInt8]) { ("sync/delta-1.json", self) }
}
