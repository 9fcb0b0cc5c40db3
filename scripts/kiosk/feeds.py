"""The calendars the kiosk system test drops into the guest."""

# A message that is always active and longer than any screen: the band must move.
TEST_FEED = """BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//marquee//kiosk system test//EN\r
BEGIN:VEVENT\r
UID:kiosk-system-test@marquee\r
DTSTAMP:20260101T000000Z\r
DTSTART;VALUE=DATE:20200101\r
RRULE:FREQ=DAILY\r
SUMMARY:KIOSK TEST: this message was dropped into the feed folder and is long enough to scroll across any screen\r
END:VEVENT\r
END:VCALENDAR\r
"""
# Messages in every script a family may write in, emoji, and one that dances: what fills the
# glyph cache of a box (the soak variant).
MIXED_SCRIPTS = ["Doctor 今天下午三点 at ten", "مرحبا بالعالم، موعد الطبيب غدا", "שלום עולם, ארוחת ערב בשש",
                 "नमस्ते दुनिया, डॉक्टर कल", "Family 👨‍👩‍👧 visit 👍🏽 1️⃣ 2️⃣", "日本語のテスト、今日は晴れです",
                 "Ελληνικά και Кириллица: Привет", "สวัสดีครับ ตอนเช้า"]
MIXED_FEED = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//marquee//kiosk soak//EN\r\n" + "".join(
    f"BEGIN:VEVENT\r\nUID:soak-{index}@marquee\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20200101\r\n"
    f"RRULE:FREQ=DAILY\r\nSUMMARY:{text}\r\nEND:VEVENT\r\n" for index, text in enumerate(MIXED_SCRIPTS)) + (
    "BEGIN:VEVENT\r\nUID:soak-dance@marquee\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20200101\r\n"
    "RRULE:FREQ=DAILY\r\nSUMMARY:🎂 It's Johnny's birthday! He turns 37 today.\r\nX-MARQUEE-EFFECT:dance\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n")


SUBSCRIBED_FEED = TEST_FEED.replace("KIOSK TEST", "KIOSK SUBSCRIPTION").replace("UID:", "UID:subscribed-")
