import ContentfulMirror
import Foundation
import MirrorTestSupport
import Testing

/// Syncs against the CDA simulator in `../shared/bench/cda_sim.py` with its fault injection on
/// (500, 503, 429, TCP resets and cut-off bodies, one request in five, pages of 25 items). Skipped, saying so, in a
/// checkout without `../shared`.
@Suite struct SimulatorFaultTests {
  static let simulator = RepositoryPaths.shared.map { $0 + "/bench/cda_sim.py" }
  static let faults = "500p=0.05,503p=0.04,429p=0.04,reset-p=0.04,truncate-p=0.03,seed=11"

  /// A running `cda_sim.py serve`, stopped on `deinit`.
  final class Simulator {
    let process = Process()
    let url: String
    let spaceID: String

    init(script: String, state: String, faults: String) throws {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = [
        "python3", script, "serve", "--state", state, "--port", "0", "--gzip", "--page-limit", "25",
        "--faults", faults,
      ]
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
      var line: [UInt8] = []
      while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 10 {
        line.append(byte)
      }
      let info = try JSONReader().read(line)
      url = info["url"]?.stringValue ?? ""
      spaceID = info["spaceId"]?.stringValue ?? ""
    }

    /// A control endpoint (`/_sim/...`), which faults never touch.
    func control(_ path: String, method: String = "GET") throws -> JSONValue {
      let curl = Process()
      curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      curl.arguments = ["python3", "-c", Self.fetchScript, method, url + path]
      let output = Pipe()
      curl.standardOutput = output
      try curl.run()
      let data = output.fileHandleForReading.readDataToEndOfFile()
      curl.waitUntilExit()
      return try JSONReader().read(Array(data))
    }

    static let fetchScript = """
      import sys, urllib.request
      request = urllib.request.Request(sys.argv[2], method=sys.argv[1], data=b"" if sys.argv[1] == "POST" else None)
      print(urllib.request.urlopen(request).read().decode())
      """

    deinit {
      kill(process.processIdentifier, SIGKILL)  // SIGTERM may be blocked in the test's threads
      process.waitUntilExit()
    }
  }

  static func python(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3"] + arguments
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "python3 \(arguments.joined(separator: " "))")
  }

  @Test func syncsThroughOneFaultInFiveEqualTheFaultFreeMirror() throws {
    guard let script = Self.simulator else {
      print("skipped: ../shared/bench/cda_sim.py is not present in this checkout")
      return
    }
    let work = try TemporaryDirectory("simulator-faults")
    let state = work.appending("state")
    try Self.python([
      script, "generate", "--out", state, "--entries", "1000", "--assets", "200", "--seed", "5",
    ])
    let simulator = try Simulator(script: script, state: state, faults: Self.faults)
    var runner = CommandRunner()
    runner.environment["CONTENTFUL_ACCESS_TOKEN"] = "sim-token"
    func sync(_ mirror: String) throws {
      let result = try runner.run([
        "sync", mirror, "--space", simulator.spaceID, "--host", simulator.url, "--timeout", "10",
        "--quiet",
      ])
      #expect(result.status == 0, "\(result.error)")
    }
    let faulty = work.appending("faulty")
    try sync(faulty)
    try Self.python([
      script, "mutate", "--state", state, "--updates", "20", "--creates", "5", "--deletes", "5",
    ])
    try sync(faulty)
    let stats = try simulator.control("/_sim/stats")
    let injected = stats["faultsInjected"]?.objectValue
    let faultCount = injected?.keys.reduce(0) { $0 + (injected?[$1]?.intValue ?? 0) } ?? 0
    #expect(faultCount > 0, "the simulator injected no faults")

    _ = try simulator.control("/_sim/faults?spec=", method: "POST")
    let clean = work.appending("clean")
    try sync(clean)
    #expect(DirectoryTree.content(at: faulty).differences(from: .content(at: clean)) == [])
    let kinds = injected?.keys.map { "\($0): \(injected?[$0]?.intValue ?? 0)" } ?? []
    print(
      "cda_sim: \(stats["requests"]?.intValue ?? 0) requests, \(faultCount) faults injected (\(kinds.joined(separator: ", ")))"
    )
  }
}
