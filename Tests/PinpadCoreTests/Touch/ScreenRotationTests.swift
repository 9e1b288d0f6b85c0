import PinpadCore
import Testing

/// A touch on a turned screen finds the picture's pixel under it (pinpadd.conf(5),
/// [Display] Rotate=).
@Suite struct ScreenRotationTests {
  @Test func ninetyDegreesClockwiseTurnsTheScreensTopRightIntoThePicturesTopLeft() {
    let r = ScreenRotation.clockwise90
    #expect(r.pictureSize(screenWidth: 800, screenHeight: 480) == (480, 800))
    #expect(r.picturePoint(screenX: 799, screenY: 0, screenWidth: 800, screenHeight: 480) == (0, 0))
    #expect(
      r.picturePoint(screenX: 0, screenY: 479, screenWidth: 800, screenHeight: 480) == (479, 799))
  }

  @Test func twoSeventyTurnsTheScreensBottomLeftIntoThePicturesTopLeft() {
    let r = ScreenRotation.clockwise270
    #expect(r.picturePoint(screenX: 0, screenY: 479, screenWidth: 800, screenHeight: 480) == (0, 0))
  }

  @Test(arguments: ScreenRotation.allCases)
  func screenAndPicturePointsAreInverse(_ r: ScreenRotation) {
    let (w, h) = (7, 3)
    let picture = r.pictureSize(screenWidth: w, screenHeight: h)
    for y in 0..<h {
      for x in 0..<w {
        let p = r.picturePoint(screenX: x, screenY: y, screenWidth: w, screenHeight: h)
        #expect((0..<picture.width).contains(p.x) && (0..<picture.height).contains(p.y))
        let back = r.screenPoint(
          pictureX: p.x, pictureY: p.y, pictureWidth: picture.width, pictureHeight: picture.height)
        #expect(back == (x, y))
      }
    }
  }
}
