"""Services layer: the cited page as it looks — page geometry from the original, page images, the HTML view."""
