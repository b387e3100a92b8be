import Foundation
import MirrorTestSupport
import Testing

@testable import ContentfulMirror

/// Export and restore with real archives written and read back by libarchive and system tools.
@Suite struct ArchiveTests {
  let work: TemporaryDirectory
  let mirror: String

  init() async throws {
    work = try TemporaryDirectory("archive")
    mirror = work.appending("mirror")
    let options = SyncOptions(space: "mirrorsample01", host: "recorded:sample-space")
    let source = RecordedSpace(directory: RepositoryPaths.sampleSpace)
    _ = try await MirrorSync(directory: mirror).run(options, source: source)
    _ = try await MirrorSync(directory: mirror).run(options, source: source)
  }

  func export(_ name: String, _ options: ExportOptions, from directory: String? = nil) throws
    -> String
  {
    let path = work.appending(name)
    _ = try MirrorExport(directory: directory ?? mirror).write(to: path, options: options)
    return path
  }

  func bytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// Runs a system tool; `nil` when it is not installed.
  @discardableResult
  func tool(_ arguments: [String], in directory: String) throws -> Int32? {
    guard
      let path = ["/usr/bin/", "/bin/"].map({ $0 + arguments[0] }).first(
        where: FileManager.default.isExecutableFile)
    else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = Array(arguments.dropFirst())
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  @Test(arguments: ArchiveFormat.allCases)
  func everyFormatReadsBackAsTheMirrorWithLibarchiveAndSystemTools(_ format: ArchiveFormat) throws {
    let archive = try export("snap.\(format.rawValue)", ExportOptions(format: format))
    let restored = work.appending("restored-\(format.rawValue)")
    let summary = try MirrorRestore(directory: restored).restore(from: archive)
    #expect(summary.items == 19 && summary.syncToken == "delta-2")
    #expect(
      DirectoryTree.mirror(at: restored).differences(from: DirectoryTree.mirror(at: mirror)) == [])

    let extracted = work.appending("extracted-\(format.rawValue)")
    try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: true)
    let status: Int32?
    switch format {
    case .zip: status = try tool(["unzip", "-q", archive], in: extracted)
    case .tarZstd: status = try tool(["bsdtar", "-xf", archive], in: extracted)
    default: status = try tool(["tar", "-xf", archive], in: extracted)
    }
    guard let status else {
      print(
        "skipped the system-tool check for \(format.rawValue): tool not installed (scripts/install-dependencies.sh installs it)"
      )
      return
    }
    #expect(status == 0)
    // The system tool's tree: the mirror's files, with the archive's manifest (export block).
    var expected = DirectoryTree.mirror(at: mirror)
    expected.files["manifest.json"] = nil
    var actual = DirectoryTree(root: extracted)
    let archivedManifest = try #require(actual.files["manifest.json"])
    actual.files["manifest.json"] = nil
    #expect(actual.differences(from: expected) == [])
    let manifest = try JSONReader().read(archivedManifest)
    #expect(manifest["export"]?["complete"] == true && manifest["syncToken"] == "delta-2")
  }

  @Test func exportIsByteIdenticalWhateverMtimesListingOrderOrUmask() throws {
    let first = try export("first.tar", ExportOptions(format: .tar))
    let firstGzip = try export("first.tar.gz", ExportOptions(format: .tarGzip, level: 6))
    // A copy of the mirror created in reverse order, under another umask, with other mtimes.
    let copy = work.appending("copy")
    let tree = DirectoryTree(root: mirror) { $0.hasPrefix(".mirror/lock") }
    let previous = umask(0o077)
    defer { umask(previous) }
    for (relative, content) in tree.files.sorted(by: { $0.key > $1.key }) {
      let path = copy + "/" + relative
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try Data(content).write(to: URL(fileURLWithPath: path))
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSince1970: 12345)], ofItemAtPath: path)
    }
    let second = try export("second.tar", ExportOptions(format: .tar), from: copy)
    let secondGzip = try export(
      "second.tar.gz", ExportOptions(format: .tarGzip, level: 6), from: copy)
    #expect(try bytes(first) == bytes(second))
    #expect(try bytes(firstGzip) == bytes(secondGzip))
  }

  @Test func membersHaveFixedOwnersModesAndTheNewestUpdatedAtAsMtime() throws {
    let archive = try export("meta.tar", ExportOptions(format: .tar))
    let reader = try ArchiveReader(path: archive)
    var paths: [String] = []
    while let entry = try reader.next() { paths.append(entry.path) }
    #expect(paths == paths.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    // ustar header fields of the first member: mode, uid, gid, mtime, user and group names.
    let header = Array(try bytes(archive).prefix(512))
    func field(_ offset: Int, _ width: Int) -> String {
      String(decoding: header[offset..<(offset + width)].prefix { $0 != 0 }, as: UTF8.self)
    }
    #expect(field(100, 8) == "000644 ")
    #expect(field(108, 8) == "000000 " && field(116, 8) == "000000 ")
    // The sample space's newest sys.updatedAt is 2026-03-21T09:00:00.000Z.
    #expect(Int(field(136, 12).trimmingCharacters(in: .whitespaces), radix: 8) == 1_774_083_600)
    #expect(field(265, 32).isEmpty && field(297, 32).isEmpty)
    let pinned = try export(
      "pinned.tar", ExportOptions(format: .tar, sourceDateEpoch: 1_000_000_000))
    let pinnedHeader = Array(try bytes(pinned).prefix(512))
    #expect(
      String(decoding: pinnedHeader[136..<147], as: UTF8.self)
        == String(1_000_000_000, radix: 8).leftPadded(11))
  }

  @Test func pipesAndFilesGetTheSameBytes() throws {
    let file = try export("file.tar.gz", ExportOptions(format: .tarGzip))
    let executable = RepositoryPaths.root + "/.build/debug/contentful-mirror"
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      print("skipped: \(executable) is not built")
      return
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["export", mirror, "-o", "-", "--format", "tar.gz"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let piped = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect([UInt8](piped) == (try bytes(file)))
  }

  @Test func aFilteredArchiveCarriesOnlyItsItemsAndAManifestThatSaysSo() throws {
    let options = ExportOptions(format: .tar, locales: ["de-DE"], contentTypes: ["post", "author"])
    let archive = try export("de.tar", options)
    let extracted = work.appending("de")
    try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: true)
    try #require(try tool(["tar", "-xf", archive], in: extracted) == 0)
    let files = DirectoryTree(root: extracted).files
    let documents = files.keys.filter { $0.hasPrefix("entries/") || $0.hasPrefix("assets/") }
    #expect(documents.allSatisfy { $0.hasSuffix("/de-DE.json") })
    #expect(
      documents.filter { $0.hasPrefix("entries/") }.allSatisfy {
        $0.hasPrefix("entries/post/") || $0.hasPrefix("entries/author/")
      })
    #expect(documents.count == (6 + 3 + 5))
    let manifest = try JSONReader().read(try #require(files["manifest.json"]))
    #expect(manifest["export"]?["complete"] == false)
    #expect(manifest["export"]?["contentTypes"] == .array(["author", "post"]))
    #expect(manifest["mirroredLocales"] == .array(["de-DE"]))
    #expect(manifest["contentTypes"]?.objectValue?.keys == ["author", "post"])
    // Links to left-out items (categories, the landing page) are marked dangling in the cut index.
    let linkRows = files.filter { $0.key.hasPrefix("index/links/") }.values.compactMap {
      try? JSONReader().read($0).objectValue
    }
    let hiking = linkRows.compactMap { $0["Entry:hiking"] }.first
    #expect(hiking?["dangling"] == true)
    let itemRows = files.filter { $0.key.hasPrefix("index/items/") }.values.compactMap {
      try? JSONReader().read($0).objectValue
    }
    #expect(itemRows.reduce(0) { $0 + $1.count } == 14)
    // Such an archive is not a whole mirror: restore refuses it.
    #expect {
      try MirrorRestore(directory: work.appending("nope")).restore(from: archive)
    } throws: { error in
      (error as? ArchiveError)?.code == .invalidArchive
    }
  }

  @Test func byLocaleLayoutPutsEachLocaleInItsOwnTree() throws {
    let archive = try export("by-locale.tar", ExportOptions(format: .tar, layout: .byLocale))
    let reader = try ArchiveReader(path: archive)
    var paths: [String] = []
    while let entry = try reader.next() { paths.append(entry.path) }
    #expect(paths.contains("fr-FR/entries/post/alps-traverse.json"))
    #expect(paths.contains("de-AT/assets/alps-hero.json"))
    #expect(paths.count == 19 * 4 + 1)
    #expect(paths.filter { !$0.hasSuffix(".json") }.isEmpty)
  }

  @Test func aDeltaBundleAppliedToTheOlderMirrorEqualsADirectSync() async throws {
    let older = work.appending("older")
    let options = SyncOptions(space: "mirrorsample01", host: "recorded:sample-space")
    _ = try await MirrorSync(directory: older).run(
      options, source: RecordedSpace(directory: RepositoryPaths.sampleSpace))
    let olderManifest = older + "/manifest.json"
    let since = try #require(try JSONReader().read(bytes(olderManifest))["syncToken"]?.stringValue)
    let bundle = try export("changes.tar.gz", ExportOptions(format: .tarGzip, since: since))
    let summary = try await MirrorRestore(directory: older).apply(bundle: bundle)
    #expect(summary.upserted == 5 && summary.deleted == 2)
    #expect(DirectoryTree.mirror(at: older).differences(from: .mirror(at: mirror)) == [])
    // Applying it again is refused: the mirror is no longer at the bundle's starting token.
    await #expect {
      try await MirrorRestore(directory: older).apply(bundle: bundle)
    } throws: { error in
      (error as? SyncError)?.code == .tokenRejected
    }
  }

  @Test func sinceATokenTheMirrorNoLongerRemembersIsRefused() throws {
    #expect {
      try export("old.tar", ExportOptions(format: .tar, since: "initial-p2"))
    } throws: { error in
      (error as? ArchiveError)?.code == .sinceTooOld
    }
  }

  @Test func restoredMirrorSyncsOnFromTheArchivedToken() async throws {
    // Export after the initial sync only, restore, then sync: the delta applies.
    let early = work.appending("early")
    let options = SyncOptions(space: "mirrorsample01", host: "recorded:sample-space")
    _ = try await MirrorSync(directory: early).run(
      options, source: RecordedSpace(directory: RepositoryPaths.sampleSpace))
    let archive = try export("early.tar.zst", ExportOptions(format: .tarZstd), from: early)
    let restored = work.appending("restored")
    _ = try MirrorRestore(directory: restored).restore(from: archive)
    let delta = try await MirrorSync(directory: restored).run(
      SyncOptions(), source: RecordedSpace(directory: RepositoryPaths.sampleSpace))
    #expect(!delta.initial && delta.upserted == 5 && delta.deleted == 2)
    #expect(DirectoryTree.mirror(at: restored).differences(from: .mirror(at: mirror)) == [])
  }

  @Test func restoreRefusesANonEmptyDirectoryWithoutForce() throws {
    let archive = try export("snap.tar", ExportOptions(format: .tar))
    let target = work.appending("busy")
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
    try Data("keep".utf8).write(to: URL(fileURLWithPath: target + "/notes.txt"))
    #expect {
      try MirrorRestore(directory: target).restore(from: archive)
    } throws: { error in
      (error as? ArchiveError)?.code == .targetNotEmpty
    }
    _ = try MirrorRestore(directory: target).restore(from: archive, force: true)
    #expect(FileManager.default.fileExists(atPath: target + "/notes.txt"))
    #expect(FileManager.default.fileExists(atPath: target + "/manifest.json"))
  }

  @Test(arguments: [
    ("../escaped.json", TarBuilder.Kind.file, ""),
    ("/tmp/contentful-mirror-absolute.json", .file, ""),
    ("entries/post/x/../../../../escaped.json", .file, ""),
    ("entries/post/evil/en-US.json", .symbolicLink, "/etc/passwd"),
    ("entries/post/evil/en-US.json", .hardLink, "/etc/passwd"),
    ("entries/post/evil/en-US.json", .characterDevice, ""),
    ("notes/readme.txt", .file, ""),
  ])
  func hostileArchivesAreRefusedAndWriteNothing(
    _ path: String, _ kind: TarBuilder.Kind, _ link: String
  ) throws {
    var builder = TarBuilder()
    builder.add("assets/a1/en-US.json", Array("{}\n".utf8))
    builder.add(path, Array("{}\n".utf8), kind: kind, linkTarget: link)
    let archive = work.appending("hostile.tar")
    try Data(builder.archive).write(to: URL(fileURLWithPath: archive))
    let target = work.appending("target")
    #expect {
      try MirrorRestore(directory: target).restore(from: archive)
    } throws: { error in
      (error as? ArchiveError)?.code == .unsafeEntry
    }
    #expect(DirectoryTree(root: target) { $0 == ".mirror/lock" }.files.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: work.appending("escaped.json")))
    #expect(!FileManager.default.fileExists(atPath: "/tmp/contentful-mirror-absolute.json"))
  }

  @Test func anArchiveWhoseFilesDoNotMatchItsIndexIsRefusedAndWritesNothing() throws {
    let complete = try export("complete.tar", ExportOptions(format: .tar))
    var builder = TarBuilder()
    let reader = try ArchiveReader(path: complete)
    while let entry = try reader.next() {
      let bytes = try reader.readData(of: entry)
      if entry.path != ".mirror/items/assets/alps-hero.json" { builder.add(entry.path, bytes) }
    }
    let damaged = work.appending("damaged.tar")
    try Data(builder.archive).write(to: URL(fileURLWithPath: damaged))
    let target = work.appending("damaged-target")
    #expect {
      try MirrorRestore(directory: target).restore(from: damaged)
    } throws: { error in
      guard let error = error as? ArchiveError else { return false }
      return error.code == .invalidArchive && error.message.contains("Asset:alps-hero")
    }
    #expect(DirectoryTree(root: target) { $0 == ".mirror/lock" }.files.isEmpty)
  }

  @Test func anUnwritableDestinationIsOneClearErrorAndLeavesNothing() throws {
    #expect {
      try export("missing-dir/snap.tar", ExportOptions(format: .tar))
    } throws: { error in
      guard let error = error as? ArchiveError else { return false }
      return error.code == .io && error.message.contains("missing-dir/snap.tar")
    }
    #expect(!FileManager.default.fileExists(atPath: work.appending("missing-dir")))
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
  }
}
