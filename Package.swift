// swift-tools-version: 6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "contentful-mirror",
  platforms: [.macOS(.v14)],
  products: [
    .library(name: "ContentfulMirror", targets: ["ContentfulMirror"]),
    .executable(name: "contentful-mirror", targets: ["contentful-mirror"]),
  ],
  targets: [
    // System calls Swift's Glibc module does not export (syncfs), as inline shims.
    .systemLibrary(name: "CSystem", path: "Sources/CSystem"),
    // libarchive for export/restore (Debian: libarchive-dev).
    .systemLibrary(
      name: "CArchive", path: "Sources/CArchive", pkgConfig: "libarchive",
      providers: [.apt(["libarchive-dev"]), .brew(["libarchive"])]),
    // libcurl for the Content Delivery API (Debian: libcurl4-openssl-dev): on Linux, URLSession
    // switches threads for every 16 KB of a response (see CONTRIBUTING.md).
    .systemLibrary(
      name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
      providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]),
    .target(
      name: "ContentfulMirror",
      dependencies: ["CSystem", "CArchive", "CCurl"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "MirrorCLI",
      dependencies: ["ContentfulMirror"],
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "contentful-mirror",
      dependencies: ["MirrorCLI"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "MirrorTestSupport",
      dependencies: ["ContentfulMirror", "CArchive"],
      swiftSettings: strictSettings
    ),
    // `swift run -c release contentful-mirror-bench`: see CONTRIBUTING.md.
    .executableTarget(
      name: "contentful-mirror-bench",
      dependencies: ["ContentfulMirror", "MirrorTestSupport"],
      path: "Sources/MirrorBenchmark",
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "ContentfulMirrorTests",
      dependencies: ["ContentfulMirror", "MirrorTestSupport"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "MirrorCLITests",
      dependencies: ["MirrorCLI", "ContentfulMirror", "MirrorTestSupport", "contentful-mirror"],
      exclude: ["Fixtures"],
      swiftSettings: strictSettings
    ),
  ]
)
