"""The carer's page in a real browser (Debian's chromium, driven by Selenium), against a running
`marquee run`: sign in, see "Now", see a message sent now reach the page, pause from the page,
read the reminders, upload a broken calendar, subscribe to a calendar and remove it, at a phone's
size and a computer's. Prints one JSON object of what it saw; the Swift test judges it.
Usage: page_browser.py BASE PASSWORD OUT_FOLDER MARQUEE SOCKET SUBSCRIPTION_ADDRESS"""
import hashlib, json, ssl, subprocess, sys, time
from urllib.parse import urlparse

from selenium.webdriver.common.by import By

from page_chromium import click_and_wait, open_browser

base, password, out, marquee, socket, address = sys.argv[1:7]
seen = {}

# What was sent now before is taken off: the message below must be a change.
subprocess.run([marquee, "show", "--clear", "--socket", socket], check=True, capture_output=True)
browser = open_browser(phone=True)
try:
    started = time.monotonic()
    browser.get(base + "/")
    browser.find_element(By.ID, "password").send_keys("not the password")
    browser.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
    seen["wrongPassword"] = browser.find_element(By.CSS_SELECTOR, ".problem").text
    browser.find_element(By.ID, "password").send_keys(password)
    browser.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
    glass = browser.find_element(By.ID, "glass")
    seen["pageLoadSeconds"] = round(time.monotonic() - started, 3)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not browser.execute_script(
            "const g = document.getElementById('glass'); return g.complete && g.naturalWidth > 0"):
        time.sleep(0.05)
    seen["firstPictureSeconds"] = round(time.monotonic() - started, 3)
    seen["pictureWidth"] = browser.execute_script("return document.getElementById('glass').naturalWidth")
    seen["cookies"] = [{"name": c["name"], "httpOnly": c.get("httpOnly"), "sameSite": c.get("sameSite"), "secure": c.get("secure")}
                       for c in browser.get_cookies()]
    seen["secureContext"] = browser.execute_script("return window.isSecureContext")
    # The certificate served is the one whose fingerprint `marquee status` says.
    where = urlparse(base)
    served = ssl.PEM_cert_to_DER_cert(ssl.get_server_certificate((where.hostname, where.port)))
    seen["servedFingerprint"] = ":".join(f"{byte:02X}" for byte in hashlib.sha256(served).digest())
    seen["documentCookie"] = browser.execute_script("return document.cookie")
    # The browser follows the box: a message sent now over the socket reaches the list and the
    # picture without a reload.
    picture = glass.get_attribute("src")
    sent = time.monotonic()
    subprocess.run([marquee, "show", "Anna is coming at 3", "--minutes", "5", "--socket", socket], check=True,
                   capture_output=True)
    deadline = sent + 10
    while time.monotonic() < deadline and "Anna is coming at 3" not in browser.find_element(By.ID, "showing").text:
        time.sleep(0.02)
    seen["textFollowedSeconds"] = round(time.monotonic() - sent, 3)
    while time.monotonic() < deadline and browser.find_element(By.ID, "glass").get_attribute("src") == picture:
        time.sleep(0.02)
    seen["pictureFollowedSeconds"] = round(time.monotonic() - sent, 3)
    seen["showing"] = browser.find_element(By.ID, "showing").text.splitlines()
    status = json.loads(subprocess.run([marquee, "status", "--json", "--socket", socket], check=True,
                                       capture_output=True, text=True).stdout)
    seen["statusShowing"] = status["showing"]
    seen["statusPage"] = status.get("page")
    browser.save_screenshot(out + "/page-now-360.png")
    seen["phoneWidth"] = browser.execute_script("return window.innerWidth")
    seen["horizontalScroll"] = browser.execute_script(
        "return document.documentElement.scrollWidth > document.documentElement.clientWidth")
    seen["smallestTarget"] = browser.execute_script(
        "return Math.min(...[...document.querySelectorAll('main button, nav a, nav button, input:not([type=hidden]):not([type=checkbox]), label.check')]"
        ".map(e => e.getBoundingClientRect().height))")
    # A button on the page pauses the text.
    click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "form[action='/act'] input[value='pause'] ~ button"))
    seen["notice"] = browser.find_element(By.CSS_SELECTOR, ".notice").text
    status = json.loads(subprocess.run([marquee, "status", "--json", "--socket", socket], check=True,
                                       capture_output=True, text=True).stdout)
    seen["statusPaused"] = status["paused"]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "paused" not in browser.find_element(By.ID, "states").text:
        time.sleep(0.02)
    seen["states"] = browser.find_element(By.ID, "states").text.splitlines()
    click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "form[action='/act'] input[value='resume'] ~ button"))
    browser.find_element(By.CSS_SELECTOR, ".notice")
    browser.get(base + "/reminders")
    seen["remindersHeading"] = browser.find_element(By.TAG_NAME, "h1").text
    browser.save_screenshot(out + "/page-reminders-360.png")
    browser.get(base + "/calendars")
    seen["calendars"] = browser.find_element(By.ID, "feeds").text
    seen["calendarsHorizontalScroll"] = browser.execute_script(
        "return document.documentElement.scrollWidth > document.documentElement.clientWidth")
    # A broken calendar uploaded: refused with its line, on the page.
    with open(out + "/broken.ics", "w") as broken:
        broken.write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\nSUMMARY:Tea\r\n")
    browser.find_element(By.ID, "calendarfile").send_keys(out + "/broken.ics")
    browser.find_element(By.ID, "send").click()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and browser.find_element(By.ID, "uploadstate").get_attribute("class") != "problem":
        time.sleep(0.1)
    seen["uploadRefused"] = browser.find_element(By.ID, "uploadstate").text
    # A subscription pasted on the page: fetched at once; the page is looked at again until
    # its events show.
    browser.find_element(By.ID, "address").send_keys(address)
    click_and_wait(browser, browser.find_element(By.ID, "subscribe"))
    seen["subscribedNotice"] = browser.find_element(By.CSS_SELECTOR, ".notice").text
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and "1 event" not in browser.find_element(By.ID, "subscriptions").text:
        time.sleep(0.5)
        browser.get(base + "/calendars")
    seen["subscribed"] = browser.find_element(By.ID, "subscriptions").text
    seen["pageHoldsToken"] = address.rsplit("/", 1)[1].split(".")[0] in browser.page_source
    browser.save_screenshot(out + "/page-calendars-360.png")
    browser.execute_script("document.getElementById('subscriptions').scrollIntoView()")
    browser.save_screenshot(out + "/page-subscriptions-360.png")

    def box_status():
        return json.loads(subprocess.run([marquee, "status", "--json", "--socket", socket], check=True,
                                         capture_output=True, text=True).stdout)

    def settled(condition):
        """The box's status once `condition` holds of it (the feeds are read again after a
        fetch, in the box's own time), or after 20 s."""
        deadline = time.monotonic() + 20
        status = box_status()
        while time.monotonic() < deadline and not condition(status):
            time.sleep(0.2)
            status = box_status()
        return status

    status = settled(lambda s: "Lunch with the family" in s["showing"])
    seen["statusSubscriptions"] = len(status.get("subscriptions", []))
    seen["statusShowsLunch"] = "Lunch with the family" in status["showing"]
    click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "form[action='/calendars/unsubscribe'] button"))
    seen["unsubscribed"] = browser.find_element(By.ID, "subscriptions").text
    status = settled(lambda s: not s.get("subscriptions") and "Lunch with the family" not in s["showing"])
    seen["statusSubscriptionsAfter"] = len(status.get("subscriptions", []))
    seen["statusShowsLunchAfter"] = "Lunch with the family" in status["showing"]
    browser.find_element(By.CSS_SELECTOR, "nav a[href='/box']").click()
    seen["boxVersion"] = browser.find_element(By.ID, "version").text
    seen["boxParts"] = len(browser.find_elements(By.CSS_SELECTOR, "#parts li"))
    seen["boxHorizontalScroll"] = browser.execute_script(
        "return document.documentElement.scrollWidth > document.documentElement.clientWidth")
    browser.save_screenshot(out + "/page-box-360.png")
    seen["consoleErrors"] = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    browser.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").click()
    browser.find_element(By.ID, "password")
    browser.get(base + "/picture.png")
    seen["pictureAfterSignOut"] = browser.execute_script("return document.body ? document.body.innerText : ''")
finally:
    browser.quit()
wide = open_browser(phone=False)
try:
    wide.get(base + "/")
    wide.find_element(By.ID, "password").send_keys(password)
    wide.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
    wide.find_element(By.ID, "glass")
    seen["wideWidth"] = wide.execute_script("return window.innerWidth")
    wide.save_screenshot(out + "/page-now-1280.png")
finally:
    wide.quit()
print(json.dumps(seen))
