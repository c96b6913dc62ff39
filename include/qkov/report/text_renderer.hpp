// Text for figures, drawn with FreeType from a TrueType font (DejaVu Sans by default).
//
// A string is first rendered into a coverage mask (one byte per pixel, anti-aliased), then
// blended onto the image either as is or turned 90 degrees counter-clockwise (reading upwards,
// as a y-axis label). Strings are UTF-8, so labels can use superscripts such as "10⁻³".
#pragma once

#include <ft2build.h>
#include FT_FREETYPE_H

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "qkov/report/raster_image.hpp"

namespace qkov::report {

/// The font figures use unless told otherwise (Debian package fonts-dejavu-core).
inline std::filesystem::path default_font_path()
{
    return "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
}

/// Where a text box sits relative to its anchor point, along one direction of the image.
enum class text_align { start, center, end };
enum class text_direction { horizontal, upwards };

/// Anti-aliased text coverage: width x height bytes, row-major; baseline is the row of the baseline.
struct text_mask {
    int width = 0, height = 0, baseline = 0;
    std::vector<std::uint8_t> coverage;
    std::uint8_t at(int x, int y) const { return coverage[static_cast<std::size_t>(y * width + x)]; }
};

/// Code points of a UTF-8 string; throws std::invalid_argument on malformed input.
inline std::vector<char32_t> decode_utf8(std::string_view text)
{
    std::vector<char32_t> out;
    for (std::size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const int extra = lead < 0x80 ? 0 : (lead >> 5) == 0x6 ? 1 : (lead >> 4) == 0xE ? 2 : (lead >> 3) == 0x1E ? 3 : -1;
        if (extra < 0 || i + static_cast<std::size_t>(extra) >= text.size())
            throw std::invalid_argument("qkov: text is not valid UTF-8 at byte " + std::to_string(i) + ": '" +
                                        std::string(text) + "'");
        char32_t code = extra == 0 ? lead : lead & (0x3F >> extra);
        for (int k = 1; k <= extra; ++k) {
            const auto next = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
            if ((next >> 6) != 0x2)
                throw std::invalid_argument("qkov: text is not valid UTF-8 at byte " + std::to_string(i) + ": '" +
                                            std::string(text) + "'");
            code = (code << 6) | (next & 0x3F);
        }
        out.push_back(code);
        i += static_cast<std::size_t>(extra) + 1;
    }
    return out;
}

class text_renderer {
public:
    /// Loads `font`; throws std::runtime_error naming the file (and the Debian package of the
    /// default font) when it is missing or FreeType cannot read it.
    explicit text_renderer(const std::filesystem::path& font = default_font_path())
    {
        if (!std::filesystem::exists(font))
            throw std::runtime_error("qkov: font file '" + font.string() +
                                     "' not found (the default font, " + default_font_path().string() +
                                     ", comes with the Debian package fonts-dejavu-core)");
        FT_Library library = nullptr;
        if (FT_Init_FreeType(&library) != 0) throw std::runtime_error("qkov: FreeType failed to initialise");
        library_.reset(library);
        FT_Face face = nullptr;
        if (FT_New_Face(library_.get(), font.c_str(), 0, &face) != 0)
            throw std::runtime_error("qkov: FreeType cannot read the font file '" + font.string() + "'");
        face_.reset(face);
    }

    /// `text` rendered at a font size of `pixel_size` pixels (the em square).
    text_mask render(std::string_view text, int pixel_size)
    {
        if (FT_Set_Pixel_Sizes(face_.get(), 0, static_cast<FT_UInt>(pixel_size)) != 0)
            throw std::invalid_argument("qkov: the font cannot be set to " + std::to_string(pixel_size) + " pixels");
        const FT_Size_Metrics& metrics = face_->size->metrics;
        // Every string of one size gets the same line height, so labels side by side line up.
        const int ascent = static_cast<int>(metrics.ascender >> 6);
        const int descent = static_cast<int>(-(metrics.descender >> 6));
        const auto codes = decode_utf8(text);

        struct placed_glyph {
            int pen_x;
            int left, top, width, rows;
            std::vector<std::uint8_t> bitmap;
        };
        std::vector<placed_glyph> glyphs;
        int pen_x = 0, right_edge = 0;
        for (const char32_t code : codes) {
            if (FT_Load_Char(face_.get(), code, FT_LOAD_RENDER) != 0)
                throw std::runtime_error("qkov: FreeType cannot render character U+" + std::to_string(code));
            const FT_GlyphSlot slot = face_->glyph;
            const FT_Bitmap& bm = slot->bitmap;
            placed_glyph g{pen_x, slot->bitmap_left, slot->bitmap_top, static_cast<int>(bm.width),
                           static_cast<int>(bm.rows), {}};
            g.bitmap.resize(static_cast<std::size_t>(g.width * g.rows));
            for (int y = 0; y < g.rows; ++y)
                for (int x = 0; x < g.width; ++x)
                    g.bitmap[static_cast<std::size_t>(y * g.width + x)] = bm.buffer[y * bm.pitch + x];
            right_edge = std::max(right_edge, pen_x + g.left + g.width);
            pen_x += static_cast<int>(slot->advance.x >> 6);
            glyphs.push_back(std::move(g));
        }
        text_mask mask;
        mask.width = std::max(pen_x, right_edge);
        mask.height = ascent + descent;
        mask.baseline = ascent;
        mask.coverage.assign(static_cast<std::size_t>(mask.width * mask.height), 0);
        for (const auto& g : glyphs)
            for (int y = 0; y < g.rows; ++y)
                for (int x = 0; x < g.width; ++x) {
                    const int mx = g.pen_x + g.left + x, my = ascent - g.top + y;
                    if (mx < 0 || my < 0 || mx >= mask.width || my >= mask.height) continue;
                    auto& c = mask.coverage[static_cast<std::size_t>(my * mask.width + mx)];
                    c = std::max(c, g.bitmap[static_cast<std::size_t>(y * g.width + x)]);
                }
        return mask;
    }

    /// Width and height in pixels of the box `draw` would fill (before any turn).
    std::pair<int, int> measure(std::string_view text, int pixel_size)
    {
        const auto mask = render(text, pixel_size);
        return {mask.width, mask.height};
    }

    /// Draws `text` so that its box (turned if `direction` is upwards) is aligned to (x, y) as
    /// `horizontal` and `vertical` say; returns the box it occupies.
    pixel_rect draw(raster_image& image, std::string_view text, int x, int y, int pixel_size, rgb colour,
                    text_align horizontal = text_align::start, text_align vertical = text_align::start,
                    text_direction direction = text_direction::horizontal)
    {
        const auto mask = render(text, pixel_size);
        const bool upwards = direction == text_direction::upwards;
        const int box_w = upwards ? mask.height : mask.width;
        const int box_h = upwards ? mask.width : mask.height;
        const auto offset = [](text_align a, int size) {
            return a == text_align::start ? 0 : a == text_align::center ? size / 2 : size - 1;
        };
        const pixel_rect box{x - offset(horizontal, box_w), y - offset(vertical, box_h),
                             x - offset(horizontal, box_w) + box_w - 1, y - offset(vertical, box_h) + box_h - 1};
        for (int my = 0; my < mask.height; ++my)
            for (int mx = 0; mx < mask.width; ++mx) {
                const std::uint8_t c = mask.at(mx, my);
                if (c == 0) continue;
                // Turning counter-clockwise: the mask's left edge becomes the box's bottom edge.
                if (upwards) image.blend_pixel(box.left + my, box.bottom - mx, colour, c);
                else image.blend_pixel(box.left + mx, box.top + my, colour, c);
            }
        return box;
    }

private:
    struct library_deleter {
        void operator()(FT_Library l) const { FT_Done_FreeType(l); }
    };
    struct face_deleter {
        void operator()(FT_Face f) const { FT_Done_Face(f); }
    };
    // Declared first so it is destroyed last: faces belong to their library.
    std::unique_ptr<FT_LibraryRec_, library_deleter> library_;
    std::unique_ptr<FT_FaceRec_, face_deleter> face_;
};

} // namespace qkov::report
