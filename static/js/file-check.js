// A classic script (it still runs from file://, where ES modules do not): explain instead of
// showing a silent blank page.
if (location.protocol === "file:") {
  document.addEventListener("DOMContentLoaded", () => {
    document.getElementById("file-warning").hidden = false;
    document.documentElement.classList.add("is-file");
  });
}
