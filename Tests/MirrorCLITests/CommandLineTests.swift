import ContentfulMirror
import Foundation
import MirrorTestSupport
import Testing

/// The CLI run as a process, as a user runs it.
@Suite struct CommandLineTests {
  static let golden = RepositoryPaths.root + "/Tests/MirrorCLITests/Fixtures/sample-mirror"
  static let token = "CFPAT-cli-secret-9876543210zyxwvutsrq"
  let runner = CommandRunner()

  @Test func sampleSpaceSyncDeltaAndRerunMatchTheGoldenTree() throws {
    let work = try TemporaryDirectory("cli")
    let mirror = work.appending("content")
    let first = try runner.run(["sync", mirror, "--source", "sample-space"])
    #expect(first.status == 0, "\(first.error)")
    #expect(first.output.contains("initial sync"))
    let second = try runner.run(["sync", mirror, "--source", "sample-space"])
    #expect(second.output.contains("delta sync") && second.output.contains("2 deleted"))
    let third = try runner.run(["sync", mirror])  // host and source come from the manifest
    #expect(third.status == 0, "\(third.error)")
    #expect(third.output.contains("0 items updated, 0 deleted, 0 documents written"))

    let tree = DirectoryTree.mirror(at: mirror)
    if ProcessInfo.processInfo.environment["CONTENTFUL_MIRROR_RECORD_GOLDEN"] == "1" {
      try tree.write(to: Self.golden)
    }
    let golden = DirectoryTree(root: Self.golden)
    #expect(
      !golden.files.isEmpty, "no golden tree; record one with CONTENTFUL_MIRROR_RECORD_GOLDEN=1")
    #expect(tree.differences(from: golden) == [])
  }

  @Test func statusReportsCountsPerContentTypeAndLocale() throws {
    let work = try TemporaryDirectory("cli-status")
    let mirror = work.appending("content")
    _ = try runner.run(["sync", mirror, "--source", "sample-space", "--quiet"])
    let result = try runner.run(["status", mirror, "--json"])
    #expect(result.status == 0)
    let status = try JSONReader().read(Array(result.output.utf8))
    #expect(status["space"] == "mirrorsample01")
    #expect(status["entriesTotal"] == 14 && status["assets"] == 6)
    #expect(status["entries"]?["post"] == 6)
    #expect(status["locales"] == .array(["en-US", "de-DE", "de-AT", "fr-FR"]))
    #expect(status["syncTokenPresent"] == true)
    #expect(status["danglingLinkTargets"] == 1)
    let human = try runner.run(["status", mirror])
    #expect(human.output.contains("environment:   master") && human.output.contains("post: 6"))
  }

  @Test(arguments: [
    [String](), ["sync"], ["sync", "a", "b"], ["sync", "x", "--bogus"], ["frobnicate"],
    ["sync", "x", "--space"],
    ["sync", "x", "--locale", "de-DE", "--all-locales"],
    ["sync", "x", "--writers", "0"], ["sync", "x", "--retries", "21"],
    ["sync", "x", "--checkpoint-every", "pages"], ["sync", "x", "--timeout", "0"],
  ])
  func usageErrorsExitWith64AndOneHelpfulLine(_ arguments: [String]) throws {
    let result = try runner.run(arguments)
    #expect(result.status == 64)
    #expect(result.error.hasPrefix("contentful-mirror: ") && result.error.contains("--help"))
  }

  @Test func failuresExitWith1AndSayWhatToDo() throws {
    let result = try runner.run(["status", "/nonexistent/mirror"])
    #expect(result.status == 1)
    #expect(
      result.error.contains("not a mirror") && result.error.contains("contentful-mirror sync"))
  }

  @Test func aFirstSyncWithoutSpaceOrTokenIsAUsageProblem() throws {
    let work = try TemporaryDirectory("cli-nospace")
    let noSpace = try runner.run(["sync", work.appending("c"), "--host", "http://127.0.0.1:9"])
    #expect(noSpace.status == 1 && noSpace.error.contains("--space"))
    let noToken = try runner.run([
      "sync", work.appending("c"), "--space", "abc", "--host", "http://127.0.0.1:9",
    ])
    #expect(noToken.status == 64 && noToken.error.contains("CONTENTFUL_ACCESS_TOKEN"))
  }

  @Test(arguments: [
    ["--help"], ["help"], ["sync", "--help"], ["status", "--help"], ["--version"],
  ])
  func helpAndVersionSucceed(_ arguments: [String]) throws {
    let result = try runner.run(arguments)
    #expect(result.status == 0 && !result.output.isEmpty)
  }

  @Test func aSyncOverHTTPNeverWritesOrPrintsTheAccessToken() throws {
    let server = try RecordedSpaceServer(
      directory: RepositoryPaths.sampleSpace, accessToken: Self.token)
    let work = try TemporaryDirectory("cli-http")
    let mirror = work.appending("content")
    var runner = self.runner
    runner.environment["CONTENTFUL_ACCESS_TOKEN"] = Self.token
    let first = try runner.run([
      "sync", mirror, "--space", "mirrorsample01", "--host", server.baseURL,
    ])
    #expect(first.status == 0, "\(first.error)")
    #expect(!first.error.contains("warning"))  // CONTENTFUL_ACCESS_TOKEN is silent
    // Later syncs take space and host from the manifest; --token works but warns.
    var bare = self.runner
    bare.environment["CONTENTFUL_ACCESS_TOKEN"] = nil
    let second = try bare.run(["sync", mirror, "--token", Self.token])
    #expect(second.status == 0 && second.error.contains("warning: --token is visible"))
    try Self.token.write(toFile: work.appending("token"), atomically: true, encoding: .utf8)
    let third = try bare.run(["sync", mirror, "--token-file", work.appending("token")])
    #expect(third.status == 0 && !third.error.contains("warning"))
    let wrong = try bare.run(["sync", mirror, "--token", "not-the-token"])
    #expect(wrong.status == 1 && wrong.error.contains("refused"))
    for result in [first, second, third, wrong] {
      #expect(!(result.output + result.error).contains(Self.token))
    }
    // Nor does it reach an archive (uncompressed, so a grep sees every byte) or a restored copy.
    let archive = work.appending("mirror.tar")
    let export = try bare.run(["export", mirror, "-o", archive])
    let restore = try bare.run(["restore", archive, work.appending("restored")])
    #expect(export.status == 0 && restore.status == 0)
    let archiveBytes = try #require(FileManager.default.contents(atPath: archive))
    #expect(!String(decoding: archiveBytes, as: UTF8.self).contains(Self.token))
    for (path, bytes) in DirectoryTree(root: work.path).files {
      #expect(
        !String(decoding: bytes, as: UTF8.self).contains(Self.token) || path == "token",
        "token found in \(path)")
    }
    for result in [export, restore] {
      #expect(!(result.output + result.error).contains(Self.token))
    }
    #expect(server.requests.allSatisfy { !$0.target.contains(Self.token) })
  }

  @Test func exportIsIdenticalAcrossTimeZonesLocalesAndUmasksAndMatchesTheGoldenTar() throws {
    let work = try TemporaryDirectory("cli-export")
    let mirror = work.appending("content")
    _ = try runner.run(["sync", mirror, "--source", "sample-space", "--quiet"])
    _ = try runner.run(["sync", mirror, "--quiet"])
    var tokyo = runner
    tokyo.environment["TZ"] = "Asia/Tokyo"
    tokyo.environment["LANG"] = "de_DE.UTF-8"
    var utc = runner
    utc.environment["TZ"] = "UTC"
    utc.environment["LANG"] = "C"
    for format in ["tar", "tar.gz", "tar.zst", "tar.xz", "zip"] {
      let first = try tokyo.run(["export", mirror, "-o", work.appending("a.\(format)")])
      let second = try utc.runShell(
        "umask 077; exec \"$0\" export \"$1\" -o \"$2\"", [mirror, work.appending("b.\(format)")])
      #expect(first.status == 0 && second.status == 0, "\(first.error) \(second.error)")
      let a = FileManager.default.contents(atPath: work.appending("a.\(format)"))
      let b = FileManager.default.contents(atPath: work.appending("b.\(format)"))
      #expect(a != nil && a == b, "\(format) differs")
    }
    let golden = RepositoryPaths.root + "/Tests/MirrorCLITests/Fixtures/sample-mirror.tar"
    let tar = try #require(FileManager.default.contents(atPath: work.appending("a.tar")))
    if ProcessInfo.processInfo.environment["CONTENTFUL_MIRROR_RECORD_GOLDEN"] == "1" {
      try tar.write(to: URL(fileURLWithPath: golden))
    }
    #expect(
      FileManager.default.contents(atPath: golden) == tar,
      "the uncompressed tar differs from the golden one")
  }

  @Test func exportAndRestoreRoundTripThroughTheCommandLine() throws {
    let work = try TemporaryDirectory("cli-roundtrip")
    let mirror = work.appending("content")
    _ = try runner.run(["sync", mirror, "--source", "sample-space", "--quiet"])
    let early = try runner.run(["export", mirror, "-o", work.appending("early.tar.gz")])
    #expect(early.status == 0 && early.error.contains("exported 20 items"))
    let manifestBefore = work.appending("manifest-before.json")
    try FileManager.default.copyItem(atPath: mirror + "/manifest.json", toPath: manifestBefore)
    _ = try runner.run(["sync", mirror, "--quiet"])
    let bundle = try runner.run([
      "export", mirror, "-o", work.appending("changes.tar.gz"), "--since", manifestBefore,
    ])
    #expect(bundle.status == 0 && bundle.error.contains("2 deletions"), "\(bundle.error)")
    let restored = work.appending("restored")
    let restore = try runner.run(["restore", work.appending("early.tar.gz"), restored])
    #expect(restore.status == 0, "\(restore.error)")
    let apply = try runner.run(["restore", "--apply", work.appending("changes.tar.gz"), restored])
    #expect(apply.status == 0 && apply.output.contains("2 deleted"), "\(apply.error)")
    #expect(DirectoryTree.mirror(at: restored).differences(from: .mirror(at: mirror)) == [])
    let again = try runner.run(["restore", work.appending("early.tar.gz"), restored])
    #expect(again.status == 1 && again.error.contains("--force"))
    let noOutput = try runner.run(["export", mirror])
    #expect(noOutput.status == 64)
    let stdoutWithoutFormat = try runner.run(["export", mirror, "-o", "-"])
    #expect(stdoutWithoutFormat.status == 64 && stdoutWithoutFormat.error.contains("--format"))
  }
}
