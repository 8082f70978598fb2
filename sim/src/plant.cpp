// Messages about the plant's failures (plant.hpp).
#include <iomanip>
#include <sstream>

#include "vcloe/sim/plant.hpp"

namespace vcloe::sim {

std::string describe_plant_failure(const RobotModel& model, const PlantState<double>& x, const Vec6d& tau) {
  std::ostringstream s;
  s << std::setprecision(4);
  const Vec6d chi = x.head<6>(), v = x.tail<6>();
  Kinematics<double> k;
  int leg = -1;
  if (!x.allFinite()) {
    s << "the twin's state turned non-finite (its dynamics diverged)";
  } else if (!compute_geometry<double>(model, chi, k, &leg)) {
    s << "the twin's pose left the workspace: leg " << leg + 1 << " cannot close";
  } else {
    s << "the twin's dynamics turned non-finite (joint angles";
    for (int i = 0; i < kLegs; ++i) s << " " << k.geometry[i].theta;
    s << " rad)";
  }
  if (chi.allFinite())
    s << " at x " << chi(0) * 1e3 << " y " << chi(1) * 1e3 << " z " << chi(2) * 1e3 << " mm, angles " << chi(3) * 1e3
      << " " << chi(4) * 1e3 << " " << chi(5) * 1e3 << " mrad";
  if (v.allFinite())
    s << ", moving at " << v.head<3>().norm() << " m/s and " << v.tail<3>().norm() << " rad/s";
  int j = 0;
  tau.cwiseAbs().maxCoeff(&j);
  s << ", under drive torques up to " << tau(j) << " N*m (joint " << j + 1
    << "): the parameters or the reference are far from what this robot follows";
  return s.str();
}

}  // namespace vcloe::sim
