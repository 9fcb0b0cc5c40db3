"""A carer writes a reminder on the page in a real browser (Debian's chromium, driven by
Selenium) and records it in their own voice: Chromium's fake microphone plays a 300 Hz tone
(made here, as a WAV file) into MediaRecorder. Daily, at TIME, from DAY. Prints one JSON object
of what it saw; the Swift test hears the box. Usage: page_write.py BASE PASSWORD OUT_FOLDER DAY TIME"""
import json, math, struct, sys, time, wave

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from page_chromium import open_browser, sign_in

base, password, out, day, at = sys.argv[1:6]
seen = {}

# The voice: three seconds of a 300 Hz tone at 48 kHz (Chromium loops it).
voice = out + "/microphone.wav"
with wave.open(voice, "wb") as file:
    file.setnchannels(1)
    file.setsampwidth(2)
    file.setframerate(48000)
    file.writeframes(b"".join(struct.pack("<h", int(12000 * math.sin(2 * math.pi * 300 * i / 48000)))
                              for i in range(48000 * 3)))

browser = open_browser(arguments=["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                                  "--use-file-for-fake-audio-capture=" + voice])
try:
    sign_in(browser, base, password)
    browser.find_element(By.LINK_TEXT, "Write").click()
    seen["emptyList"] = "None yet" in browser.find_element(By.TAG_NAME, "main").text
    browser.find_element(By.ID, "text").send_keys("Pills now, Anna: listen to me")
    browser.execute_script("document.getElementById('day').value = arguments[0];"
                           "document.getElementById('time').value = arguments[1];", day, at)
    Select(browser.find_element(By.ID, "repetition")).select_by_value("daily")
    seen["recorderOffered"] = browser.find_element(By.ID, "record").is_displayed()
    browser.find_element(By.ID, "record").click()
    time.sleep(2.5)
    browser.find_element(By.ID, "stop").click()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not browser.execute_script("return document.body.dataset.recorded"):
        time.sleep(0.1)
    seen["recordedSeconds"] = float(browser.execute_script("return document.body.dataset.recorded") or 0)
    seen["recordingSaid"] = browser.find_element(By.ID, "voicestate").text
    browser.save_screenshot(out + "/page-write-360.png")
    browser.find_element(By.ID, "save").click()
    seen["notice"] = browser.find_element(By.CSS_SELECTOR, ".notice").text
    seen["listed"] = browser.find_element(By.ID, "written").text
    seen["horizontalScroll"] = browser.execute_script(
        "return document.documentElement.scrollWidth > document.documentElement.clientWidth")
    seen["smallestTarget"] = browser.execute_script(
        "return Math.min(...[...document.querySelectorAll('main button:not([hidden]), main a.button, main select')]"
        ".map(e => e.getBoundingClientRect().height))")
    browser.save_screenshot(out + "/page-written-360.png")
finally:
    browser.quit()
print(json.dumps(seen))
