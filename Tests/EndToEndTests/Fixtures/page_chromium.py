"""Debian's chromium for the carer's page tests, driven by Selenium: headless, at a phone's
size (360 px wide, emulated: a headless window cannot be narrower than 500) or a computer's,
taking the box's own certificate."""
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.wait import WebDriverWait


def open_browser(phone=True, arguments=()):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800", *arguments]:
        options.add_argument(argument)
    # The box's own certificate: the carer accepts it once, having compared its fingerprint
    # with `marquee status` (the test compares them itself).
    options.accept_insecure_certs = True
    if phone:
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": 360, "height": 800, "pixelRatio": 1}})
    opened = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    opened.implicitly_wait(10)
    return opened


def sign_in(browser, base, password):
    """Signs in and waits for "Now"'s picture of the glass."""
    browser.get(base + "/")
    browser.find_element(By.ID, "password").send_keys(password)
    browser.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
    browser.find_element(By.ID, "glass")


def click_and_wait(browser, element):
    """Clicks a button that sends a form and waits for the next page, loaded: until then the
    elements found are the old page's (which a mark on its window tells apart)."""
    browser.execute_script("window.leftBehind = true")

    def next_page_loaded(driver):
        try:
            return driver.execute_script("return !window.leftBehind && document.readyState === 'complete'")
        except WebDriverException:
            return False  # between the two pages

    element.click()
    WebDriverWait(browser, 20).until(next_page_loaded)
