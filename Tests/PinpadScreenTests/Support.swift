import Foundation
import PinpadCore
import Testing

@testable import PinpadScreen

/// The states every golden is drawn for, by name.
enum Fixtures {
  static func model(_ build: (inout ScreenModel) -> Void) -> ScreenModel {
    var m = ScreenModel()
    build(&m)
    return m
  }

  static let states: [(String, ScreenModel)] = [
    ("idle", model { $0.phase = .idle }),
    (
      "entering-masked",
      model {
        $0.phase = .entering
        $0.boxes = 6
        $0.filled = 3
        $0.cursor = 3
        $0.showsRevealToggle = true
      }
    ),
    (
      "entering-revealed",
      model {
        $0.phase = .entering
        $0.boxes = 6
        $0.filled = 4
        $0.digits = [0, 4, 7, 1]
        $0.cursor = 4
        $0.showsRevealToggle = true
        $0.revealed = true
      }
    ),
    (
      "entering-notice",
      model {
        $0.phase = .entering
        $0.boxes = 8
        $0.filled = 2
        $0.cursor = 2
        $0.notice = "Too short"
      }
    ),
    (
      "card-read",
      model {
        $0.phase = .entering
        $0.prompt = ScreenText.cardReadPrompt
        $0.boxes = 4
        $0.filled = 2
        $0.cursor = 2
      }
    ),
    (
      "present-card",
      model {
        $0.phase = .idle
        $0.boxes = 4
        $0.notice = ScreenText.presentCard
      }
    ),
    (
      "entering-32",
      model {
        $0.phase = .entering
        $0.boxes = 32
        $0.filled = 20
        $0.cursor = 20
      }
    ),
    (
      "checking",
      model {
        $0.phase = .checking
        $0.filled = 4
        $0.cursor = nil
      }
    ),
    ("granted", model { $0.phase = .granted(message: nil) }),
    ("denied", model { $0.phase = .denied(message: nil, attemptsLeft: 2) }),
    ("locked", model { $0.phase = .locked(secondsLeft: 27) }),
    ("unavailable", model { $0.phase = .unavailable }),
    ("no-response", model { $0.phase = .noResponse }),
    (
      "keypad-entering",
      model {
        $0.phase = .entering
        $0.filled = 2
        $0.cursor = 2
        $0.showsRevealToggle = true
        $0.keypad = OnScreenKeypadModel(pressed: .digit(5))
      }
    ),
    (
      "keypad-denied",
      model {
        $0.phase = .denied(message: "Card expired", attemptsLeft: 1)
        $0.keypad = OnScreenKeypadModel(digitCells: [7, 3, 0, 9, 1, 5, 2, 8, 4, 6])
      }
    ),
  ]

  static let sizes: [(Int, Int)] = [(320, 240), (800, 480), (1920, 1080)]
}

/// Where goldens are read (the test bundle) and, on request, written (the source tree).
enum Goldens {
  static var regenerating: Bool {
    ProcessInfo.processInfo.environment["PINPADD_REGENERATE_GOLDENS"] == "1"
  }

  static var sourceFolder: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens")
  }

  static func url(_ name: String) -> URL? {
    Bundle.module.url(forResource: name, withExtension: "png", subdirectory: "Goldens")
  }

  /// Compares `canvas` with the golden `name`.png pixel for pixel; with
  /// PINPADD_REGENERATE_GOLDENS=1 writes it into the source folder instead.
  static func check(
    _ canvas: Canvas, named name: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    if regenerating {
      let data = Data(try ImageFile.png(canvas))
      try data.write(to: sourceFolder.appendingPathComponent(name + ".png"))
      return
    }
    guard let url = url(name), let data = try? Data(contentsOf: url) else {
      Issue.record(
        "golden \(name).png is missing; run PINPADD_REGENERATE_GOLDENS=1 swift test --filter PinpadScreenTests and review the images",
        sourceLocation: sourceLocation)
      return
    }
    let golden = try ImageFile.decodePNG([UInt8](data))
    #expect(
      golden.width == canvas.width && golden.height == canvas.height, "\(name): size differs",
      sourceLocation: sourceLocation)
    guard golden.width == canvas.width && golden.height == canvas.height else { return }
    if golden.pixels != canvas.pixels {
      let differing = zip(golden.pixels, canvas.pixels).filter { $0 != $1 }.count
      Issue.record(
        "\(name): \(differing) pixels differ from the golden", sourceLocation: sourceLocation)
    }
  }
}
