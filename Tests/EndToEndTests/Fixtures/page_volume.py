"""A carer changes the day's volume on the page in a real browser (Debian's chromium, driven by
Selenium) and plays a test reminder after each change: loud (100), then quiet (30). The box
plays into ALSA's file PCM (PLAYED, a WAV file made anew for each reminder); this measures each
one's loudness (RMS of its samples) and prints one JSON object; the Swift test judges it.
Usage: page_volume.py BASE PASSWORD OUT_FOLDER PLAYED"""
import json, math, os, struct, sys, time, wave

from selenium.webdriver.common.by import By

from page_chromium import open_browser, sign_in

base, password, out, played = sys.argv[1:5]
seen = {}


def heard():
    """Waits for the box to play the test reminder whole, then its RMS (the file taken away)."""
    deadline = time.monotonic() + 40
    size = -1
    while time.monotonic() < deadline:
        now = os.path.getsize(played) if os.path.exists(played) else -1
        if now > 44 and now == size:
            break
        size = now
        time.sleep(1)
    with wave.open(played, "rb") as file:
        frames = file.readframes(file.getnframes())
    os.remove(played)
    samples = struct.unpack("<%dh" % (len(frames) // 2), frames)
    return math.sqrt(sum(s * s for s in samples) / max(1, len(samples)))


browser = open_browser()
try:
    sign_in(browser, base, password)
    for volume in ["100", "30"]:
        browser.find_element(By.LINK_TEXT, "Settings").click()
        field = browser.find_element(By.ID, "volume_day")
        field.clear()
        field.send_keys(volume)
        browser.find_element(By.ID, "keepsettings").click()
        seen["notice" + volume] = browser.find_element(By.CSS_SELECTOR, ".notice").text
        if os.path.exists(played):
            os.remove(played)
        browser.find_element(By.ID, "testreminder").click()
        seen["rms" + volume] = round(heard(), 1)
    browser.save_screenshot(out + "/page-settings-360.png")
    seen["horizontalScroll"] = browser.execute_script(
        "return document.documentElement.scrollWidth > document.documentElement.clientWidth")
finally:
    browser.quit()
print(json.dumps(seen))
