// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "marquee",
    products: [.executable(name: "marquee", targets: ["MarqueeCLI"])],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // The carer's page: an HTTP server on swift-nio (its optional traits left out).
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // The page over HTTPS (BoringSSL inside: a few minutes more of a first build).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        .systemLibrary(name: "CLibical", pkgConfig: "libical", providers: [.apt(["libical-dev"])]),
        .target(name: "CICU", linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc")]),
        // What every module may need and needs nothing of ours but the Linux bridge: clocks,
        // files, threads, stable hashes, printable text.
        .target(name: "Support", dependencies: ["CLinux"]),
        .target(name: "Schedule", dependencies: ["Support", "CLibical", "CICU", "CLinux"]),
        .target(name: "Marquee", dependencies: ["Support"]),
        .target(name: "CLinux"),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CHarfBuzz", pkgConfig: "harfbuzz", providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CFriBidi", pkgConfig: "fribidi", providers: [.apt(["libfribidi-dev"])]),
        .systemLibrary(name: "CDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        // Every frame looks up glyph pictures held in class properties; checking each access for
        // exclusivity at run time costs a tenth of a frame's drawing. Debug builds (the tests)
        // still check.
        .target(name: "Display", dependencies: ["Support", "Marquee", "CLinux", "CFreeType", "CZlib", "CHarfBuzz", "CFriBidi", "CDRM", "CICU"],
                swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        .systemLibrary(name: "CEspeak", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
        .target(name: "CALSA", linkerSettings: [.linkedLibrary("asound")]),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        // Reminders heard: the chime, speech (eSpeak NG), recordings (libsndfile) and the sound
        // device (ALSA).
        .target(name: "Sound", dependencies: ["Support", "CEspeak", "CALSA", "CSndfile"]),
        .target(name: "CCurl"),
        .target(name: "CMosquitto"),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The reminder ledger: what became of each reminder, in SQLite (the only module that
        // imports CSQLite).
        .target(name: "Ledger", dependencies: ["Support", "CSQLite"]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        .target(name: "Daemon", dependencies: [
            "Support", "Schedule", "Marquee", "Display", "Sound", "Ledger", "CLinux", "CCurl", "CMosquitto", "CArgon2",
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The `marquee` command (its folder differs from Marquee's by more than case).
        .executableTarget(
            name: "MarqueeCLI",
            dependencies: ["Support", "Schedule", "Marquee", "Display", "Sound", "Daemon", "Ledger", "CLinux", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(
            name: "schedule-benchmark", dependencies: ["Support", "Schedule", "CLibical"], path: "Benchmarks/ScheduleBenchmark"),
        .executableTarget(name: "marquee-benchmark", dependencies: ["Marquee", "Display"], path: "Benchmarks/MarqueeBenchmark"),
        .executableTarget(
            name: "framebuffer-benchmark", dependencies: ["Marquee", "Display"], path: "Benchmarks/FramebufferBenchmark"),
        .executableTarget(name: "sound-benchmark", dependencies: ["Sound", "Display", "Marquee"], path: "Benchmarks/SoundBenchmark"),
        .executableTarget(name: "ledger-benchmark", dependencies: ["Ledger", "Support"], path: "Benchmarks/LedgerBenchmark"),
        .executableTarget(name: "schedule-fuzz", dependencies: ["Schedule"], path: "Fuzz/ScheduleFuzz"),
        .testTarget(name: "ScheduleTests", dependencies: ["Support", "Schedule", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "SoundTests", dependencies: ["Sound", "Support", "TestSupport", "LoopbackServers"], exclude: ["Fixtures"]),
        .testTarget(name: "MarqueeTests", dependencies: ["Support", "Marquee", "TestSupport"]),
        .testTarget(name: "LedgerTests", dependencies: ["Ledger", "Support", "TestSupport"]),
        .testTarget(name: "SupportTests", dependencies: ["Support", "TestSupport"]),
        .testTarget(name: "MarqueeCLITests", dependencies: ["MarqueeCLI", "Daemon", "Schedule"]),
        .testTarget(name: "DisplayTests", dependencies: ["Display", "Marquee", "Support", "Schedule", "CZlib", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "DaemonTests", dependencies: ["Support", "Daemon", "Display", "Schedule", "Marquee", "LoopbackServers", "TestSupport", "DaemonTestKit"]),
        .testTarget(name: "EndToEndTests", dependencies: ["Schedule", "Sound", "Support", "Ledger", "LoopbackServers", "TestSupport"], exclude: ["Fixtures"]),
        // Real servers on loopback for the tests (nginx with a certificate authority of its own).
        .target(name: "LoopbackServers", dependencies: ["CLinux"], path: "Tests/LoopbackServers"),
        // What the tests share: waiting for what real time drives, sound heard back.
        .target(name: "TestSupport", dependencies: ["Schedule", "Marquee", "Sound"], path: "Tests/TestSupport"),
        // The display loop on a clock the test moves, a screen that records, a television that
        // remembers: for every test of the daemon (debug builds only: it reaches into Daemon).
        .target(name: "DaemonTestKit", dependencies: ["Daemon", "Display", "Schedule", "Marquee", "Sound", "Support", "TestSupport"],
                path: "Tests/DaemonTestKit"),
    ],
    swiftLanguageModes: [.v6]
)
